/**
 * Hostile demo folders from a seeded generator, through the same find + load + ingest the
 * CLI runs (findDemoFiles, ingestFiles) on a real embedded log and blob directory. Every
 * case ends in one one-line rejection or a clean ingest, never a failure or a hang; memory
 * stays bounded; and a canary file beside each folder reaches no blob and no event.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect, Layer, Stream } from "effect"
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DirectoryBlobStore } from "@core/blobstore"
import { EmbeddedStore, EventStore } from "@core/eventstore"
import { findDemoFiles, ingestFiles } from "../mod.ts"
import type { LoadOptions } from "../mod.ts"
import { validDemo, writeDemo } from "./fixture.ts"

const SEED = 20250117
const CASES = 300
const tmp = mkdtempSync(join(tmpdir(), "core-demos-fuzz-"))
const fifoList = join(tmp, "fifos.txt")
writeFileSync(fifoList, "")
// Should a regression ever block on a FIFO again, this opens every FIFO made so far every two seconds: the case fails instead of hanging.
const valve = Bun.spawn([
  "sh",
  "-c",
  `while :; do sleep 2; while read -r f; do [ -p "$f" ] && { exec 3<>"$f"; exec 3>&-; }; done < '${fifoList}'; done`
])
afterAll(() => {
  valve.kill()
  rmSync(tmp, { recursive: true, force: true })
})

const TOKEN = `CANARY-${crypto.randomUUID()}`
const options: LoadOptions = { tasks: new Set(["shop-wishlist-add-1"]), maxBlobBytes: 64 * 1024, maxDemoBytes: 256 * 1024 }
const PATHS: Record<string, string> = { "s0.png": "shots/s0.png", "s1.png": "shots/s1.png", "e0.json": "e0.json", "a0.txt": "a0.txt" }

/** mulberry32: small, seeded, good enough to pick mutations. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const rand = prng(SEED)
const pick = <T>(xs: ReadonlyArray<T>): T => xs[Math.floor(rand() * xs.length)]!
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1))

interface Ctx {
  readonly demo: any
  readonly canary: string
  /** Edits of the demo.json text, then of its bytes, then of the written folder. */
  readonly text: Array<(t: string) => string>
  readonly bytes: Array<(b: Uint8Array) => Uint8Array>
  readonly fs: Array<(dir: string) => void>
}
const blob = () => pick(Object.keys(PATHS))
/** Puts `make(path)` where a blob file (or demo.json) was. */
const replace = (c: Ctx, rel: string, make: (p: string) => void) =>
  c.fs.push((dir) => {
    rmSync(join(dir, rel), { recursive: true, force: true })
    make(join(dir, rel))
  })
/** A link at `p`, whatever was there: a case may pick the same mutation twice. */
const link = (target: string, p: string) => {
  rmSync(p, { recursive: true, force: true })
  symlinkSync(target, p)
}
const mkfifo = (p: string) => {
  Bun.spawnSync(["mkfifo", p])
  writeFileSync(fifoList, `${p}\n`, { flag: "a" })
}
const deep = (n: number) => "[".repeat(n) + "]".repeat(n)
const someValue = (): unknown =>
  pick<() => unknown>([
    () => null,
    () => -1,
    () => 1e308,
    () => "x".repeat(int(0, 70000)),
    () => [],
    () => ({}),
    () => true,
    () => "\u0000\n\r\u2028",
    () => ({ __proto__: 1 })
  ])()

const MUTATIONS: ReadonlyArray<readonly [string, (c: Ctx) => void]> = [
  ["blob links to the canary", (c) => replace(c, PATHS[blob()]!, (p) => symlinkSync(c.canary, p))],
  ["demo.json links to the canary", (c) => replace(c, "demo.json", (p) => symlinkSync(c.canary, p))],
  ["blob is a hard link to the canary", (c) => replace(c, PATHS[blob()]!, (p) => linkSync(c.canary, p))],
  ["demo.json is a hard link to the canary", (c) => replace(c, "demo.json", (p) => linkSync(c.canary, p))],
  [
    "blob folder links to the canary's folder",
    (c) => {
      c.demo.blobs["s0.png"] = "shots/canary.txt"
      replace(c, "shots", (p) => symlinkSync(join(c.canary, ".."), p))
    }
  ],
  ["blob is a FIFO", (c) => replace(c, PATHS[blob()]!, mkfifo)],
  ["demo.json is a FIFO", (c) => replace(c, "demo.json", mkfifo)],
  [
    "blob links to /dev/zero",
    (c) => replace(c, PATHS[blob()]!, (p) => symlinkSync(pick(["/dev/zero", "/dev/urandom", "/proc/self/environ"]), p))
  ],
  [
    "blob under a link to /dev",
    (c) => {
      c.demo.blobs["a0.txt"] = "dev/zero"
      c.fs.push((dir) => link("/dev", join(dir, "dev")))
    }
  ],
  ["blob is a directory", (c) => replace(c, PATHS[blob()]!, (p) => mkdirSync(p))],
  [
    "blob is huge and sparse",
    (c) => replace(c, PATHS[blob()]!, (p) => (writeFileSync(p, ""), truncateSync(p, int(64 * 1024 + 1, 256 * 1024 ** 2))))
  ],
  ["blob is empty", (c) => replace(c, PATHS[blob()]!, (p) => writeFileSync(p, ""))],
  [
    "blobs add up past the demo limit",
    (c) => {
      for (const k of Object.keys(PATHS)) replace(c, PATHS[k]!, (p) => writeFileSync(p, new Uint8Array(60 * 1024).fill(k.charCodeAt(0))))
      c.text.push((t) => t.replace(`"blobs": {`, `"blobs": { "x1": "shots/s0.png", "x2": "shots/s1.png",`))
    }
  ],
  [
    "blob path escapes",
    (c) => (c.demo.blobs[blob()] = pick(["../canary.txt", "shots/../../canary.txt", "..", ".", "", "shots/", "a0.txt/", "./../canary.txt"]))
  ],
  ["blob path is absolute", (c) => (c.demo.blobs[blob()] = pick([c.canary, "/dev/zero", "/etc/passwd", "//canary.txt"]))],
  ["blob path is odd", (c) => (c.demo.blobs[blob()] = pick(["a\u0000b", "a\nb", "x".repeat(5000), "é/ü.png", "loop/x"]))],
  [
    "symlink loop on the way",
    (c) => {
      c.demo.blobs["a0.txt"] = "loop/x"
      c.fs.push((dir) => (link(join(dir, "loop2"), join(dir, "loop")), link(join(dir, "loop"), join(dir, "loop2"))))
    }
  ],
  ["blob is demo.json itself", (c) => (c.demo.blobs[blob()] = "demo.json")],
  [
    "wrong hash",
    (c) => {
      const h = Array.from({ length: 64 }, () => pick([..."0123456789abcdef"])).join("")
      c.demo.blobs[h] = "a0.txt"
      c.demo.steps[0].observation.aria = h
    }
  ],
  [
    "unknown field",
    (c) =>
      (pick([c.demo, c.demo.steps[0], c.demo.steps[0].observation, c.demo.steps[0].action, c.demo.steps[0].action.target])[
        pick(["extra", "constructor", "toString", "__defineGetter__"])
      ] = someValue())
  ],
  [
    "a field gets any value",
    (c) => {
      const holder = pick([c.demo, c.demo.steps[int(0, 2)], c.demo.steps[0].observation, c.demo.steps[0].action])
      holder[pick(Object.keys(holder))] = someValue()
    }
  ],
  [
    "__proto__ keys",
    (c) =>
      c.text.push((t) =>
        pick([
          () => t.replace(`"blobs": {`, `"blobs": { "__proto__": "a0.txt",`).replace(`"aria": "a0.txt"`, `"aria": "__proto__"`),
          () => t.replace(`{`, `{ "__proto__": { "polluted": true },`),
          () => t.replace(`"observation": {`, `"observation": { "__proto__": { "screenshot": "s0.png" },`)
        ])()
      )
  ],
  ["deeply nested JSON", (c) => c.text.push((t) => t.replace(`"platform"`, `"deep": ${deep(int(1000, 30000))}, "platform"`))],
  [
    "huge JSON",
    (c) =>
      c.text.push((t) =>
        t.replace(
          `"steps": [`,
          `"steps": [${`{ "action": { "kind": "wait" }, "urlBefore": null, "urlAfter": null, "observation": { "screenshot": null, "elements": null, "aria": null } },`.repeat(int(100, 3000))}`
        )
      )
  ],
  [
    "not UTF-8",
    (c) =>
      c.bytes.push((b) => {
        const i = int(1, b.length - 2)
        return new Uint8Array([...b.subarray(0, i), 0xff, 0xc3, 0x28, ...b.subarray(i)])
      })
  ],
  ["demo.json is empty or truncated", (c) => c.text.push((t) => t.slice(0, int(0, t.length - 1)))],
  ["demo.json quotes the canary's path", (c) => (c.demo.demoId = c.canary)],
  [
    "unknown task, odd demo id",
    (c) => ((c.demo.taskId = pick(["nope", "", "__proto__"])), (c.demo.demoId = pick(["a.b", "ws.>", "x\ny", "ok-id"])))
  ]
]

const caseFolder = (i: number): { file: string; mutations: Array<string> } => {
  const caseDir = join(tmp, `case-${i}`)
  mkdirSync(caseDir)
  const c: Ctx = { demo: validDemo(), canary: join(caseDir, "canary.txt"), text: [], bytes: [], fs: [] }
  writeFileSync(c.canary, `${TOKEN}\n`)
  const mutations: Array<string> = []
  for (let k = int(1, 3); k > 0; k--) {
    const [name, mutate] = pick(MUTATIONS)
    mutations.push(name)
    mutate(c)
  }
  const dir = join(caseDir, pick(["demo", "demo", "demo", "de\nmo", "demo\r", "dé mo"]))
  let text = JSON.stringify(c.demo, null, 2)
  for (const edit of c.text) text = edit(text)
  let bytes: Uint8Array = new TextEncoder().encode(text)
  for (const edit of c.bytes) bytes = edit(bytes)
  const file = writeDemo(dir, undefined, "")
  writeFileSync(file, bytes)
  for (const edit of c.fs) edit(dir)
  return { file, mutations }
}

/** Every file under `dir` as latin1 text, so a token in any bytes is found. */
const allBytes = (dir: string): string =>
  readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f))
    .filter((p) => statSync(p).isFile())
    .map((p) => readFileSync(p, "latin1"))
    .join("\n")

test(`${CASES} generated hostile demo folders: one clean outcome each, bounded memory, no canary in the log or the blobs`, async () => {
  const dbPath = join(tmp, "store", "events.db")
  const blobDir = join(tmp, "blobs")
  const layer = Layer.mergeAll(EmbeddedStore.layer({ path: dbPath }), DirectoryBlobStore.layer({ dir: blobDir }))
  Bun.gc(true)
  const rssBefore = process.memoryUsage().rss
  const problems: Array<string> = []
  const tally = { ingested: 0, rejected: 0 }
  const program = Effect.gen(function* () {
    for (let i = 0; i < CASES; i++) {
      const { file, mutations } = caseFolder(i)
      const files = findDemoFiles(join(file, "..")) // as `bun core ingest <dir>` finds them
      const lines: Array<string> = []
      const s = yield* ingestFiles(files, options, (l) => lines.push(l))
      const where = `case ${i} (${mutations.join(" + ")})`
      const outcomes = s.ingested + s.skipped + s.rejected.length
      if (s.failed.length > 0) problems.push(`${where}: failed: ${s.failed[0]!.error}`)
      else if (files.length === 1 && outcomes !== 1) problems.push(`${where}: ${outcomes} outcomes`)
      for (const l of [...lines, ...s.rejected.map((r) => r.reason)])
        if (/[\n\r\u2028\u2029]/.test(l)) problems.push(`${where}: not one line: ${JSON.stringify(l)}`)
      tally.ingested += s.ingested + s.skipped
      tally.rejected += s.rejected.length
    }
    return yield* (yield* EventStore).readAll().pipe(Stream.runCollect)
  })
  const events = await Effect.runPromise(Effect.provide(program, layer))
  Bun.gc(true)
  const grown = process.memoryUsage().rss - rssBefore

  expect(problems).toEqual([])
  expect(({} as any).polluted).toBeUndefined()
  // Both outcomes occur, so the generator neither breaks every demo nor leaves them all valid.
  expect(tally.ingested).toBeGreaterThan(10)
  expect(tally.rejected).toBeGreaterThan(CASES / 2)
  expect(grown).toBeLessThan(300 * 1024 * 1024)
  expect(JSON.stringify([...events].map((e) => e.event))).not.toContain(TOKEN)
  expect(allBytes(join(tmp, "store"))).not.toContain(TOKEN)
  expect(allBytes(blobDir)).not.toContain(TOKEN)
}, 60_000)
