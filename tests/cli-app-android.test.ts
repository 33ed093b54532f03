/**
 * CORE on an Android app pack end to end, as a user runs it, without a device: the fixture
 * pack (libs/apps/test/fixtures/android) whose instances are Appium stand-ins. `record
 * --from` writes an Android demo, `run --app` records its own demo, rolls out and explores
 * on the stand-ins, and `replay` re-derives every decision. A copy of the pack whose `stop`
 * first saves its stand-in's log of received commands is what shows, per episode, that the
 * app's data was cleared before its activity started: with instance-per-episode a stand-in
 * lives for one episode, so its log is gone once the run ends.
 */
import { afterAll, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fixtureRoot, leftovers, removeRoot, variant } from "../libs/apps/test/support.ts"
import { core, REPO, smallRunArgs } from "./support/cli.ts"

const STAND_IN = join(REPO, "libs", "env-android", "test", "support", "AppiumStandIn.ts")
const KEEP_LOG = `import { mkdirSync, writeFileSync } from "node:fs"
const base = process.argv[2]!
const log = await fetch(new URL("standin/log", base)).then((r) => r.text(), () => null)
if (log !== null) {
  mkdirSync("logs", { recursive: true })
  writeFileSync(\`logs/\${Date.now()}-\${new URL(base).port}.json\`, log)
}
await fetch(new URL("standin/shutdown", base), { method: "POST" }).catch(() => undefined)
`

const root = fixtureRoot("android-cli")
const PACK = variant(
  root,
  "android-logged",
  (c) => {
    c.instance.start[1] = STAND_IN
    c.instance.stop = ["bun", "keep-log.ts", "{base}"]
  },
  { base: "android", files: { "keep-log.ts": KEEP_LOG } }
)
const data = mkdtempSync(join(tmpdir(), "core-app-android-"))
const flags = ["--store", "embedded", "--data-dir", data]
afterAll(() => {
  removeRoot(root)
  rmSync(data, { recursive: true, force: true })
})

interface Received {
  readonly route: string
  readonly script?: string
  readonly args?: unknown
}

/** The logs of the stand-ins stopped since the last call that served a session: one per episode. */
const episodeLogs = (() => {
  let seen = new Set<string>()
  return (): Array<Array<Received>> => {
    const dir = join(PACK, "logs")
    const files = existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => !seen.has(f))
          .sort()
      : []
    seen = new Set([...seen, ...files])
    return files
      .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as Array<Received>)
      .filter((log) => log.some((r) => r.route === "POST /session"))
  }
})()

const scripts = (log: ReadonlyArray<Received>) => log.map((r) => r.script ?? r.route)

/** Each episode's stand-in: the app stopped, its data cleared, then its activity started. */
const expectClearedBeforeStart = (logs: ReadonlyArray<ReadonlyArray<Received>>) => {
  for (const log of logs) {
    const s = scripts(log)
    const clear = s.indexOf("mobile: clearApp")
    expect(clear).toBeGreaterThan(s.indexOf("mobile: terminateApp"))
    expect(log[clear]!.args).toEqual([{ appId: "com.android.settings" }])
    expect(s.indexOf("mobile: startActivity")).toBeGreaterThan(clear)
  }
}

test("given the Android fixture pack, record --from writes an android v2 demo, run --app plays every episode on a stand-in with the app's data cleared first, replay agrees, and nothing is left running", async () => {
  const out = join(data, "recorded")
  const steps = join(PACK, "demos", "fa-network-1.steps.json")
  const recorded = await core(["record", "--app", PACK, "--task", "fa-network-1", "--from", steps, "--out", out, "--json"])
  expect({ code: recorded.code, error: recorded.stderr.split("\n").filter((l) => l.startsWith("error:")) }).toEqual({ code: 0, error: [] })
  expect(recorded.stderr).toContain("(com.android.settings/.Settings → com.android.phone/.NetworkTypeDialog)")
  const demo = JSON.parse(readFileSync(join(out, "demo.json"), "utf8")) as {
    version: number
    platform: string
    initial: { elements: string }
    steps: Array<{ appAfter: string; urlAfter: string | null }>
  }
  expect({ version: demo.version, platform: demo.platform }).toEqual({ version: 2, platform: "android" })
  expect(demo.steps.map((s) => s.appAfter)).toEqual([
    "com.android.phone/.NetworkTypeDialog",
    "com.android.settings/.Settings",
    "com.android.settings/.Settings"
  ])
  // The screen before the first step is the start activity, as it opened.
  const initial = JSON.parse(readFileSync(join(out, "blobs", `${demo.initial.elements}.json`), "utf8")) as {
    url: null
    app: string
    elements: Array<unknown>
  }
  expect({ url: initial.url, app: initial.app, elements: initial.elements.length }).toEqual({
    url: null,
    app: "com.android.settings/.Settings",
    elements: 31
  })
  const recordLogs = episodeLogs()
  expect(recordLogs).toHaveLength(1)
  expectClearedBeforeStart(recordLogs)
  expect(leftovers(root)).toEqual([])

  const run = await core(smallRunArgs(PACK, ["fa-network-1"], flags))
  expect({ code: run.code, error: run.stderr.split("\n").filter((l) => l.startsWith("error:")) }).toEqual({ code: 0, error: [] })
  expect(run.stderr).toContain("demos: 1/1 fa-network-1: 3 steps ingested")
  expect(run.stderr).toContain("2 Appium sessions (Android)")
  const metrics = JSON.parse(run.stdout) as { run_id: string; tasks: number; trajectories: number; infra_errors: number }
  expect(metrics.infra_errors).toBe(0)
  expect(metrics.trajectories).toBeGreaterThanOrEqual(1)
  // The demo and every trajectory: one episode each, each on its own stand-in (an episode restarted after a failure would add one).
  const runLogs = episodeLogs()
  expect(runLogs.length).toBeGreaterThanOrEqual(metrics.trajectories + 1)
  expectClearedBeforeStart(runLogs)
  expect(existsSync(join(data, "demos", "android", "fixture-android", "fa-network-1", "demo.json"))).toBe(true)
  const started = (await core(["events", "tail", "--no-follow", "--filter", `run.${metrics.run_id}.>`, "--type", "RunStarted", ...flags]))
    .stdout
  expect(started).toContain('"run.platform":"android"')

  const replay = await core(["replay", metrics.run_id, ...flags])
  expect(replay.code).toBe(0)
  expect(replay.stdout).toMatch(/divergences\s+0\b/)
  expect(leftovers(root)).toEqual([])
}, 90_000)
