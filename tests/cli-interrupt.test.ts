/**
 * Stopping a long command with SIGTERM (or Ctrl-C): the command is interrupted, its
 * finalizers close Chromium and the sites, it exits 130 with one line — and nothing it
 * started outlives it. The interrupted run then resumes to the end and replays with 0
 * divergences: no event was lost or half-written.
 */
import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { cleanEnv, core, REPO } from "./support/cli.ts"

const tmp = mkdtempSync(join(tmpdir(), "core-cli-interrupt-"))
const flags = ["--store", "embedded", "--data-dir", tmp]
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** Every live process below `root`, from /proc. */
const descendants = (root: number): Array<number> => {
  const parents = new Map<number, number>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ")".
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]))
    } catch {
      // Gone while listing.
    }
  }
  const out: Array<number> = []
  const walk = (pid: number) => {
    for (const [child, parent] of parents) if (parent === pid) out.push(child), walk(child)
  }
  walk(root)
  return out
}

const alive = (pid: number): boolean => {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8")
    return state.slice(state.lastIndexOf(")") + 2)[0] !== "Z"
  } catch {
    return false
  }
}

test("SIGTERM mid-round stops the run with one line and exit 130, leaves no process behind, and the run resumes to a clean replay", async () => {
  const child = Bun.spawn(
    [
      "bun",
      "apps/cli/main.ts",
      "run",
      "--tasks",
      "shop-open-category-1,shop-open-product-1",
      "--samples",
      "4",
      "--seed",
      "interrupt-1",
      ...flags
    ],
    {
      cwd: REPO,
      env: cleanEnv(),
      stdout: "pipe",
      stderr: "pipe"
    }
  )
  let stderr = ""
  const reader = (async () => {
    for await (const chunk of child.stderr as ReadableStream<Uint8Array>) stderr += new TextDecoder().decode(chunk)
  })()
  // Until the round is under way: Chromium and the sites are up, episodes are being logged.
  const until = Date.now() + 300_000
  while (!/round 1\/1 .*[1-9]\d*\/\d+ trajectories/.test(stderr)) {
    if (Date.now() > until || child.exitCode !== null) throw new Error(`the run did not reach round 1: ${stderr.slice(-2000)}`)
    await Bun.sleep(100)
  }
  const started = descendants(child.pid)
  expect(started.length).toBeGreaterThan(0)
  child.kill("SIGTERM")
  const code = await child.exited
  await reader
  expect(code).toBe(130)
  expect(stderr).toContain("interrupted (SIGTERM): stopping")
  expect(stderr).not.toMatch(/\n\s+at /)
  // Chromium and its helpers went with the run.
  await Bun.sleep(500)
  expect(started.filter(alive)).toEqual([])

  const runId = /run (run-[a-z0-9-]+): /.exec(stderr)![1]!
  const resumed = await core(["run", "--resume", runId, "--json", ...flags])
  expect(resumed.code).toBe(0)
  expect(JSON.parse(resumed.stdout).trajectories).toBe(2 * (4 + 3))
  const replay = await core(["replay", runId, "--json", ...flags])
  expect(JSON.parse(replay.stdout).divergences).toEqual([])
}, 600_000)
