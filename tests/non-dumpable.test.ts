/**
 * A pack's processes run as the user who runs CORE, and may read the /proc/<pid>/environ of
 * any other process of that user: the CLI's holds the model key and NATS and database
 * credentials. The CLI marks itself non-dumpable (libs/config/NonDumpable.ts), which makes its
 * /proc entries root's. Root reads every /proc entry regardless, so as root these tests run
 * both sides as `nobody`; the control — the same process unmarked — shows a same-user read
 * does succeed, so the refusal is the mark's doing. Linux only.
 */
import { afterAll, expect, test } from "bun:test"
import { accessSync, chmodSync, constants, copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { REPO } from "./support/cli.ts"

const linux = process.platform === "linux"
const root = linux && process.getuid?.() === 0
if (!linux) console.log("skipping the non-dumpable CLI tests: prctl(PR_SET_DUMPABLE) is Linux's")

const dir = mkdtempSync(join(tmpdir(), "core-nondumpable-"))
chmodSync(dir, 0o755)
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const secret = `sk-test-${crypto.randomUUID()}`

/** Runs as `nobody` when we are root (another user than root is what a pack is), else as ourselves. */
const asUser = (argv: ReadonlyArray<string>): Array<string> => (root ? ["runuser", "-u", "nobody", "--", ...argv] : [...argv])

/** The bun binary as `nobody` can run it: ours where it may, else a copy it can. */
const bun = ((): string => {
  if (!root) return process.execPath
  if (Bun.spawnSync(asUser([process.execPath, "--version"])).exitCode === 0) return process.execPath
  const copy = join(dir, "bun")
  copyFileSync(process.execPath, copy)
  chmodSync(copy, 0o755)
  return copy
})()

// The helper alone, beside a holder script, where `nobody` can read both.
copyFileSync(join(REPO, "libs", "config", "NonDumpable.ts"), join(dir, "NonDumpable.ts"))
writeFileSync(
  join(dir, "holder.ts"),
  `import { markNonDumpable } from "./NonDumpable.ts"
const marked = process.argv[2] === "mark" ? markNonDumpable() : false
const child = Bun.spawn(["sleep", "60"], { stdout: "ignore" })
console.log(JSON.stringify({ pid: process.pid, child: child.pid, marked }))
await Bun.sleep(60_000)
`
)
for (const f of ["NonDumpable.ts", "holder.ts"]) chmodSync(join(dir, f), 0o644)

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, CORE_TEST_SECRET: secret }

/** Starts `argv` and waits for its first stdout line. */
const start = async (argv: ReadonlyArray<string>, cwd: string) => {
  const proc = Bun.spawn(asUser(argv), { cwd, env, stdout: "pipe", stderr: "pipe" })
  const reader = proc.stdout.getReader()
  let text = ""
  while (!text.includes("\n")) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`${argv.join(" ")} ended before its first line: ${await new Response(proc.stderr).text()}`)
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return { proc, line: text.slice(0, text.indexOf("\n")) }
}

/** What a same-user process gets reading `pid`'s environment: the text, or the refusal. */
const readEnviron = (pid: number): { ok: boolean; text: string } => {
  const r = Bun.spawnSync(asUser(["cat", `/proc/${pid}/environ`]), { env })
  return { ok: r.exitCode === 0, text: r.exitCode === 0 ? r.stdout.toString() : r.stderr.toString() }
}

const holder = (mode: "mark" | "plain") => start([bun, "holder.ts", mode], dir)

test.skipIf(!linux)(
  "given a process that marked itself non-dumpable, when another process of its user reads its environ, then it is refused; unmarked, the same read gets the secret",
  async () => {
    const [marked, plain] = await Promise.all([holder("mark"), holder("plain")])
    try {
      const m = JSON.parse(marked.line) as { pid: number; child: number; marked: boolean }
      const p = JSON.parse(plain.line) as { pid: number; child: number; marked: boolean }
      expect(m.marked).toBe(true)
      const refused = readEnviron(m.pid)
      expect(refused.ok).toBe(false)
      expect(refused.text).toContain("Permission denied")
      // The control: the read itself works, so the refusal above is the mark's.
      const read = readEnviron(p.pid)
      expect(read.ok).toBe(true)
      expect(read.text).toContain(secret)
      // What the marked process starts is dumpable again (exec resets it): the mark is the CLI's alone.
      expect(readEnviron(m.child).ok).toBe(true)
    } finally {
      for (const h of [marked, plain]) {
        const { pid, child } = JSON.parse(h.line) as { pid: number; child: number }
        // Ours, ended by their ids: the holder's sleep, then the holder, which runuser (when there is one) then reaps.
        for (const p of [child, pid]) {
          try {
            process.kill(p, "SIGKILL")
          } catch {
            // Already gone.
          }
        }
        await h.proc.exited
      }
    }
  },
  30_000
)

/** Whether `nobody` can read the repository, to run the CLI as that user. */
const repoReadable = (): boolean => {
  if (!root) return true
  try {
    accessSync(REPO, constants.R_OK)
    return Bun.spawnSync(asUser(["test", "-r", join(REPO, "apps", "cli", "main.ts")])).exitCode === 0
  } catch {
    return false
  }
}

test.skipIf(!linux || !repoReadable())(
  "given the real CLI running (bun core sites serve) with a secret in its environment, when another process of its user reads its environ, then it is refused",
  async () => {
    const cli = await start([bun, "apps/cli/main.ts", "sites", "serve"], REPO)
    try {
      expect(cli.line).toStartWith("sites on http://127.0.0.1:")
      // With runuser in between, the CLI is runuser's child: found by its parent, not its own id.
      const pid = root ? childOf(cli.proc.pid) : cli.proc.pid
      // The right process (its command line stays world-readable), so a refusal is not a wrong pid's.
      expect(Bun.spawnSync(asUser(["cat", `/proc/${pid}/cmdline`])).stdout.toString()).toContain("sites\0serve")
      const refused = readEnviron(pid)
      expect(refused.ok).toBe(false)
      expect(refused.text).not.toContain(secret)
    } finally {
      cli.proc.kill("SIGTERM")
      await cli.proc.exited
    }
  },
  30_000
)

/** The one child of `pid` (runuser's: the command it runs). */
const childOf = (pid: number): number => {
  const r = Bun.spawnSync(["cat", `/proc/${pid}/task/${pid}/children`])
  const child = Number(r.stdout.toString().trim().split(" ")[0])
  if (!Number.isInteger(child) || child <= 0) throw new Error(`no child of ${pid}`)
  return child
}
