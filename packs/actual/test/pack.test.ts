/**
 * The actual pack's commands, end to end without a browser: start.ts brings up a real
 * Actual sync server that answers 200, evaluate.ts reads the
 * seeded budget from it — an undone task fails, a right answer passes, a wrong one fails —
 * and stop.ts leaves no process and no data behind. Skips when the pack's npm install is missing.
 */
import { afterAll, expect, test } from "bun:test"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { installed, processesNaming } from "../lib.ts"

const PACK = join(import.meta.dir, "..")
const ready = installed()
if (!ready) console.log("skip: packs/actual is not installed (run scripts/setup: npm ci in the pack and its native build)")

/** The harness's minimal environment; evaluate's retry window shortened (nothing changes the budget here). */
const env = (): Record<string, string> => {
  const out: Record<string, string> = { CORE_APP_INSTANCE_TAG: "pack-test", CORE_ACTUAL_EVAL_WAIT_MS: "0" }
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

test.skipIf(!ready)(
  "start, evaluate and stop one instance",
  async () => {
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
    expect(existsSync(join(instance, "server-files", "account.sqlite"))).toBe(true)

    const res = await fetch(`http://127.0.0.1:${port}/`)
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(html).toContain("<title>Actual</title>")
    // The sync server: bootstrapped by the seed, password log-in.
    const info = (await (await fetch(`http://127.0.0.1:${port}/account/needs-bootstrap`)).json()) as { data: { bootstrapped: boolean } }
    expect(info.data.bootstrapped).toBe(true)

    // The seeded budget as the server holds it: a task not done fails, with the reason.
    const undone = await run(["bun", "evaluate.ts", instance, "t03-add-holiday-account", ""])
    expect(undone.code).toBe(1)
    expect(undone.out).toContain('no account named "Holiday Fund"')
    const transfer = await run(["bun", "evaluate.ts", instance, "t07-transfer-groceries-gifts", ""])
    expect(transfer.code).toBe(1)
    expect(transfer.out).toContain("Groceries is 300.00, not 280.00")
    expect((await run(["bun", "evaluate.ts", instance, "t08-hide-decimals", ""])).code).toBe(1)
    // Answer tasks: the right amount in any usual spelling, not another.
    expect((await run(["bun", "evaluate.ts", instance, "t01-savings-balance", "$5,012.56"])).code).toBe(0)
    expect((await run(["bun", "evaluate.ts", instance, "t01-savings-balance", "5012.65"])).code).toBe(1)
    expect((await run(["bun", "evaluate.ts", instance, "t10-search-atlas-payee", " marlow books. "])).code).toBe(0)
    expect((await run(["bun", "evaluate.ts", instance, "no-such-task", ""])).code).toBe(2)
    expect((await run(["bun", "evaluate.ts", "/etc", "t01-savings-balance", "x"])).code).toBe(2)

    expect((await run(["bun", "stop.ts", "/tmp"])).code).toBe(2)
    const stopped = await run(["bun", "stop.ts", instance])
    expect(stopped.code).toBe(0)
    expect(await proc.exited).toBe(0)
    expect(processesNaming(instance)).toEqual([])
    expect(existsSync(instance)).toBe(false)
    expect((await run(["bun", "stop.ts", instance])).code).toBe(0)
  },
  60_000
)
