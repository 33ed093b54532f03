/**
 * The tiddlywiki pack's commands, end to end without a browser: start.ts brings up a real
 * TiddlyWiki that answers 200, evaluate.ts fails an undone task and passes a right answer on
 * the untouched seed, reset.ts restores the seed in place, stop.ts leaves no process behind.
 */
import { afterAll, expect, test } from "bun:test"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { processesNaming } from "../lib.ts"

const PACK = join(import.meta.dir, "..")

/** The harness's minimal environment; evaluate's retry window shortened (the seed never changes here). */
const env = (): Record<string, string> => {
  const out: Record<string, string> = { CORE_APP_INSTANCE_TAG: "pack-test", CORE_TW_EVAL_WAIT_MS: "300" }
  for (const k of ["PATH", "HOME", "LANG", "TMPDIR"]) if (process.env[k] !== undefined) out[k] = process.env[k]!
  return out
}

const run = async (argv: ReadonlyArray<string>) => {
  const proc = Bun.spawn([...argv], { cwd: PACK, env: env(), stdout: "pipe", stderr: "pipe", stdin: "ignore" })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, out: (stdout + stderr).trim() }
}

const freePort = (): number => {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: () => undefined } })
  const port = s.port
  s.stop(true)
  return port
}

let started: { kill(signal?: number | NodeJS.Signals): void; readonly exited: Promise<number> } | undefined
let instance: string | undefined

afterAll(async () => {
  if (instance) await run(["bun", "stop.ts", instance])
  started?.kill("SIGKILL")
})

test("start, evaluate, reset and stop one instance", async () => {
  const port = freePort()
  const proc = Bun.spawn(["bun", "start.ts", String(port)], { cwd: PACK, env: env(), stdout: "pipe", stderr: "inherit", stdin: "ignore" })
  started = proc
  const reader = proc.stdout.getReader()
  let buf = ""
  while (!/^URL=.*$/m.test(buf)) {
    const { value, done } = await reader.read()
    if (done) break
    buf += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  expect(buf).toContain(`URL=http://127.0.0.1:${port}/`)
  instance = /^INSTANCE=(.*)$/m.exec(buf)![1]!
  expect(existsSync(join(instance, "tiddlers", "Welcome.tid"))).toBe(true)

  const res = await fetch(`http://127.0.0.1:${port}/`)
  expect(res.status).toBe(200)
  expect(await res.text()).toContain("Kestrel Station Wiki")

  // Untouched seed: an edit task is not done, an answer task passes with the right answer only.
  const undone = await run(["bun", "evaluate.ts", instance, "t07-append-maintenance-log", ""])
  expect(undone.code).toBe(1)
  expect(undone.out).toContain("nothing was appended")
  expect((await run(["bun", "evaluate.ts", instance, "t06-follow-lead-hometown", " port elspeth. "])).code).toBe(0)
  expect((await run(["bun", "evaluate.ts", instance, "t06-follow-lead-hometown", "Valdera"])).code).toBe(1)
  expect((await run(["bun", "evaluate.ts", instance, "h02-search-petrel-speed", "14.0 knots"])).code).toBe(0)
  expect((await run(["bun", "evaluate.ts", instance, "no-such-task", ""])).code).toBe(2)
  expect((await run(["bun", "evaluate.ts", "/etc", "t06-follow-lead-hometown", "x"])).code).toBe(2)

  // A tiddler written behind the server's back (as if the episode had appended the line)…
  const log = join(instance, "tiddlers", "Maintenance Log.tid")
  writeFileSync(log, readFileSync(log, "utf8") + "\n* 2024-05-02 Replaced pump seal")
  expect((await run(["bun", "evaluate.ts", instance, "t07-append-maintenance-log", ""])).code).toBe(0)
  // …is the seed's again after reset, and the server is back on the same port.
  expect((await run(["bun", "reset.ts", instance])).code).toBe(0)
  expect((await run(["bun", "evaluate.ts", instance, "t07-append-maintenance-log", ""])).code).toBe(1)
  expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200)

  expect((await run(["bun", "stop.ts", "/tmp"])).code).toBe(2)
  const stopped = await run(["bun", "stop.ts", instance])
  expect(stopped.code).toBe(0)
  expect(await proc.exited).toBe(0)
  expect(processesNaming(instance)).toEqual([])
  expect(existsSync(instance)).toBe(false)
  // Idempotent.
  expect((await run(["bun", "stop.ts", instance])).code).toBe(0)
}, 15_000)
