/**
 * Start-to-200 time of start.ts: spawns `bun start.ts {port}` N times (one at a time), times
 * each from spawn to its URL=/INSTANCE= lines (printed once `/` answers 200) and the reset.ts
 * round trip, stops each, and prints the samples and the median. `--node` runs the TiddlyWiki
 * server under node instead of bun (start.ts's CORE_TW_RUNTIME=node).
 *
 * @example
 * bun packs/tiddlywiki/tools/bench-start.ts        # 5 starts, server under bun
 * bun packs/tiddlywiki/tools/bench-start.ts 9 --node
 */
import { runPack, startInstance } from "./harness.ts"

const n = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 5)
if (process.argv.includes("--node")) process.env.CORE_TW_RUNTIME = "node"

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const starts: Array<number> = []
const resets: Array<number> = []
for (let i = 0; i < n; i++) {
  const inst = await startInstance()
  starts.push(inst.readyMs)
  const t0 = performance.now()
  const r = await runPack(["bun", "reset.ts", inst.dir])
  if (r.code !== 0) throw new Error(`reset failed: ${r.stderr}`)
  resets.push(performance.now() - t0)
  await inst.stop()
}
const fmt = (xs: ReadonlyArray<number>) => xs.map((x) => x.toFixed(0)).join(", ")
console.log(
  `runtime ${process.env.CORE_TW_RUNTIME === "node" ? "node" : "bun"}: start-to-200 ms [${fmt(starts)}] p50 ${median(starts).toFixed(0)}; reset ms [${fmt(resets)}] p50 ${median(resets).toFixed(0)}`
)
