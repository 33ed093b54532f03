/**
 * `bun core app check` as a user runs it, on the fixture packs of libs/apps/test: the good
 * pack end to end in real headless Chromium, a malformed pack and a failing start as one
 * `error:` line, SIGTERM while the app starts — and no process of the pack left after any.
 */
import { afterAll, expect, test } from "bun:test"
import { join } from "node:path"
import { eventually, fixtureRoot, leftovers, removeRoot, startMode, variant } from "../libs/apps/test/support.ts"
import { core, expectOneLineError, spawnCore } from "./support/cli.ts"

const root = fixtureRoot("cli")
afterAll(() => removeRoot(root))

test("app check --json on the good pack: ready time, the first task's page title and elements; the instance is stopped", async () => {
  const r = await core(["app", "check", join(root, "good"), "--json"])
  expect(r.code).toBe(0)
  const report = JSON.parse(r.stdout) as { ready_ms: number; title: string; elements: number; tasks: number; url: string }
  expect(report.ready_ms).toBeGreaterThan(0)
  expect(report.ready_ms).toBeLessThan(10_000)
  expect(report.title).toBe("Fixture Wiki")
  expect(report.elements).toBe(4)
  expect(report.tasks).toBe(2)
  expect(report.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#GettingStarted$/)
  expect(leftovers(root)).toEqual([])
})

test("a malformed pack, a failing start and an android pack whose starts are web paths: one line each, nothing left running", async () => {
  const unknown = variant(root, "unknown", (c) => (c.colour = "blue"))
  const failing = variant(root, "failing", (c) => (c.instance.start = startMode("exit3")))
  const android = variant(
    root,
    "phone",
    (c) => ((c.platform = "android"), (c.android = { appPackage: "org.example.wiki", appActivity: ".Main" }))
  )
  const [bad, failed, phone] = await Promise.all([
    core(["app", "check", unknown]),
    core(["app", "check", failing]),
    core(["app", "check", android])
  ])
  expectOneLineError(bad, expect)
  expect(bad.code).toBe(1)
  expect(bad.stderr.trim()).toBe(`error: ${unknown}/core-app.json: colour: unknown field`)
  expectOneLineError(failed, expect)
  expect(failed.code).toBe(1)
  expect(failed.stderr.trim()).toBe(
    "error: app fixture-wiki: start exited with code 3 before printing URL=…; last output: boom: config.yml is missing"
  )
  // The device check itself runs on libs/apps/test/fixtures/android (libs/apps/test/Android.test.ts).
  expectOneLineError(phone, expect)
  expect(phone.stderr.trim()).toBe(
    `error: ${android}/tasks.json: tasks[0].start: expected an activity: '.Main' or 'org.example.Main' (of the pack's appPackage), or 'org.example/.Main'`
  )
  expect(leftovers(root)).toEqual([])
})

test("SIGTERM while the app starts: exit 130, and the starting instance is stopped", async () => {
  const slow = variant(root, "slow", (c) => ((c.instance.start = startMode("hang")), (c.instance.readyTimeoutMs = 60_000)))
  const child = spawnCore(["app", "check", slow])
  // The pack's own start, not the CLI (whose command line names the folder too).
  expect(await eventually(() => leftovers(slow).some((p) => p.includes("start.ts hang")), 20_000)).toBe(true)
  child.kill("SIGTERM")
  expect(await child.exited).toBe(130)
  expect(leftovers(root)).toEqual([])
})

test("eval labels --app without a run: label functions from the demo alone pass the task reached another way and refuse a wrong answer, against evaluate", async () => {
  const click = (name: string) => ({ kind: "click", target: { role: "link", name } })
  const steps = (...s: ReadonlyArray<unknown>) => JSON.stringify({ version: 1, steps: s })
  const dir = variant(root, "labels", () => undefined, {
    files: {
      "demos/fw-open-1.steps.json": steps(click("First"), { kind: "answer", text: "pass: getting started" }),
      "demos/alt/fw-open-1.steps.json": steps(
        { kind: "type", target: { role: "textbox", name: "Search" }, text: "first" },
        click("First"),
        { kind: "answer", text: "pass: getting started" }
      ),
      "demos/alt/fw-open-1.method.steps.json": steps(click("Second"), { kind: "answer", text: "no idea" })
    }
  })
  const data = join(root, "labels-data")
  const r = await core(["eval", "labels", "--app", dir, "--json", "--store", "embedded", "--data-dir", data])
  expect(r.stderr).not.toContain("error:")
  expect(r.code).toBe(0)
  expect(JSON.parse(r.stdout)).toMatchObject({
    trajectories: 2,
    positives: 1,
    tp: 1,
    fp: 0,
    tn: 1,
    fn: 0,
    precision: 1,
    recall: 1,
    recall_other_paths: 1,
    recall_other_methods: null,
    predicted_pass: 1,
    mistakes: []
  })
  expect(leftovers(root)).toEqual([])
}, 120_000)
