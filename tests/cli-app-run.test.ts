/**
 * CORE on a real third-party app, end to end as a user runs it: `run --app packs/tiddlywiki`
 * on two tasks from an empty data directory (tasks registered, step files played as demos,
 * label functions inferred, one round of rollouts and exploration), then the pack's
 * evaluate against the verdicts, a replay with the read models, the pack's tasks registered,
 * a demo of an unknown task refused, the console's pages of the run — and no TiddlyWiki
 * process left behind.
 */
import { afterAll, expect, test } from "bun:test"
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SYNTHESIS } from "@core/domain"
import { core as coreCli, expectOneLineError, REPO, smallRunArgs } from "./support/cli.ts"
import { startUi } from "./support/console.ts"
import { instanceProcesses } from "./support/instances.ts"

const PACK = join(REPO, "packs", "tiddlywiki")
const TASKS = ["t01-open-storm-protocol", "t02-search-spare-fuses"]
const data = mkdtempSync(join(tmpdir(), "core-app-run-"))
const flags = ["--store", "embedded", "--data-dir", data]
afterAll(() => rmSync(data, { recursive: true, force: true }))

/** The pack's commands run under this TMPDIR: what they leave is this test's alone, whatever else runs on the machine. */
const tmp = mkdtempSync(join(tmpdir(), "core-app-run-tmp-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const core = (args: ReadonlyArray<string>) => coreCli(args, { TMPDIR: tmp })

/** Every process CORE started for a TiddlyWiki instance of this test (start.ts copies the seed under TMPDIR/core-tw-…). */
const tiddlywikis = () => instanceProcesses(tmp, [PACK, join(tmp, "core-tw-")])

test("run --app on two tasks from an empty data dir: demos, rounds, no infra errors; evaluate, replay and registration agree; nothing left running", async () => {
  const run = await core(smallRunArgs("packs/tiddlywiki", TASKS, flags))
  expect(run.stderr).not.toContain("error:")
  expect(run.code).toBe(0)
  expect(run.stderr).toContain("demos: 2/2")
  const metrics = JSON.parse(run.stdout) as {
    run_id: string
    tasks: number
    trajectories: number
    infra_errors: number
    datasets: { records: number }
  }
  expect(metrics.tasks).toBe(2)
  expect(metrics.trajectories).toBeGreaterThanOrEqual(4)
  expect(metrics.infra_errors).toBe(0)
  expect(metrics.datasets.records).toBeGreaterThan(0)
  expect(tiddlywikis()).toEqual([])

  // The pack's evaluate judged every episode the run verified.
  const judged = await core(["eval", "labels", "--app", "packs/tiddlywiki", "--run", metrics.run_id, "--json", ...flags])
  expect(judged.code).toBe(0)
  const scores = JSON.parse(judged.stdout) as {
    judged: number
    predicted_pass: number
    agreement: number | null
    per_task: Record<string, unknown>
  }
  expect(scores.judged).toBe(metrics.trajectories)
  expect(Object.keys(scores.per_task).sort()).toEqual(TASKS)
  expect(scores.agreement).not.toBeNull()

  // The run's verified passes of the open task, played again as step files and corrupted, judged by the run's graphs.
  const hard = await core([
    "eval",
    "corruptions",
    "--app",
    "packs/tiddlywiki",
    "--run",
    metrics.run_id,
    "--instance",
    TASKS[0]!,
    "--json",
    ...flags
  ])
  if (hard.code !== 0) throw new Error(hard.stderr.slice(-2000))
  const report = JSON.parse(hard.stdout) as { sources: { played: number; passing: number }; negatives: number; false_passes: number }
  expect(report.sources.passing).toBeGreaterThan(0)
  expect(report.negatives).toBeGreaterThan(0)
  expect(report.false_passes).toBe(0)
  // Every corruption is of one of the run's passes, not of the step files.
  const [suite] = readdirSync(join(data, "eval")).filter((f) => f.startsWith("corruptions-app-"))
  const families = JSON.parse(readFileSync(join(data, "eval", suite!), "utf8")).trajectories.map((t: { family: string }) => t.family)
  expect(families.length).toBeGreaterThan(report.negatives)
  for (const f of families) expect(f).toMatch(/^run:/)
  expect(tiddlywikis()).toEqual([])

  expect((await core(["db", "project", ...flags])).code).toBe(0)
  const replay = await core(["replay", metrics.run_id, "--projections", ...flags])
  expect(replay.code).toBe(0)
  expect(replay.stdout).toMatch(/divergences\s+0\b/)
  expect(replay.stdout).toMatch(/projections\s+digest matches/)

  // The run registered its tasks and the pack's held-out ones; registering the pack adds the rest.
  const registered = await core(["tasks", "register", "--app", "packs/tiddlywiki", ...flags])
  expect(registered.code).toBe(0)
  expect(registered.stdout).toMatch(/^17 tasks: 8 registered, 0 updated, 9 unchanged$/m)
  const listed = (await core(["tasks", "list", "--app", "packs/tiddlywiki", "--json", ...flags])).stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { id: string; split: string; demo: boolean })
  expect(listed.length).toBe(17)
  expect(listed.filter((t) => t.demo).map((t) => t.id)).toEqual(TASKS)
  expect(listed.filter((t) => t.split === "held-out").length).toBe(7)

  // TiddlyWiki routes by the fragment: the demo's pages are its tiddlers, and the run says so for its deciders.
  const demo = JSON.parse(readFileSync(join(data, "demos", "tiddlywiki", TASKS[0]!, "demo.json"), "utf8")) as {
    taskId: string
    steps: Array<{ urlAfter: string | null }>
  }
  expect(demo.steps.map((s) => s.urlAfter)).toContain("/#Storm%20Protocol")
  const started = (await core(["events", "tail", "--no-follow", "--filter", `run.${metrics.run_id}.>`, "--type", "RunStarted", ...flags]))
    .stdout
  expect(started).toContain('"app.hashRouting":true')
  expect(started).toContain(`"infer.synthesis":"${SYNTHESIS.current}"`)
  // The pack's data is one a trainer can trust: every sft step shows its screen, pseudo-demos close, pairs are credited.
  const checked = await core(["dataset", "check", "--run", metrics.run_id, "--json", ...flags])
  expect(JSON.parse(checked.stdout).problems).toEqual([])
  // The audit shows a rollout's pages as the app named them.
  const audit = await core(["audit", "trajectory", `${metrics.run_id}/r1-s0-${TASKS[0]}`, ...flags])
  expect(audit.code).toBe(0)
  // Which tiddlers the seeded policy opens is its own business; each page it reached is shown by its fragment.
  expect(audit.stdout).toMatch(/→ \/#\S+/)

  // The console shows the pack's run: its graph as the log has it, a rollout's pages by their fragment.
  const ui = await startUi(data)
  try {
    const page = async (path: string) => {
      const r = await ui.get(path)
      expect(r.status).toBe(200)
      return r.text()
    }
    expect(await page("/")).toContain(metrics.run_id)
    const graph = JSON.parse((await core(["graph", "show", TASKS[0]!, "--run", metrics.run_id, "--json", ...flags])).stdout)
    const drawn = [...(await page(`/runs/${metrics.run_id}/tasks/${TASKS[0]}`)).matchAll(/data-node-id="([^"]+)"/g)].map((m) => m[1])
    expect(new Set(drawn)).toEqual(new Set(graph.nodes.map((n: { node_id: string }) => n.node_id)))
    expect(await page(`/runs/${metrics.run_id}/trajectories/r1-s0-${TASKS[0]}`)).toMatch(/\/#[^"<\s]+/)
  } finally {
    await ui.stop()
  }

  // A demo naming a task the pack does not have is refused in one line.
  const stray = join(data, "stray")
  cpSync(join(data, "demos", "tiddlywiki", TASKS[0]!), stray, { recursive: true })
  writeFileSync(join(stray, "demo.json"), JSON.stringify({ ...demo, taskId: "t99-no-such-task" }))
  const ingest = await core(["ingest", stray, "--app", "packs/tiddlywiki", ...flags])
  expectOneLineError(ingest, expect)
  expect(ingest.stderr).toContain("t99-no-such-task")
  expect(tiddlywikis()).toEqual([])
}, 420_000)

test("eval --report --app: behaviour cloning, a CORE round and both ablations on a pack, each judged by its evaluate on a held-out task", async () => {
  const dir = mkdtempSync(join(tmpdir(), "core-app-report-"))
  try {
    const report = await core([
      "eval",
      "--report",
      "--app",
      "packs/tiddlywiki",
      "--seeds",
      "1",
      "--rounds",
      "1",
      "--tasks",
      TASKS[0]!,
      "--held-out",
      "h01-open-weather-mast",
      "--json",
      "--store",
      "embedded",
      "--data-dir",
      dir
    ])
    expect(report.stderr).not.toContain("error:")
    expect(report.code).toBe(0)
    const r = JSON.parse(report.stdout) as {
      bc: { mean: number }
      rounds: Array<{ mean: number }>
      no_expansion: { mean: number }
      no_extrapolation: { mean: number }
      config: { site: string; train: Array<string>; held_out: Array<string> }
      runs: Array<Record<string, string>>
    }
    expect(r.config).toMatchObject({ site: "tiddlywiki", train: [TASKS[0]], held_out: ["h01-open-weather-mast"] })
    expect(r.rounds.length).toBe(1)
    for (const arm of [r.bc, r.rounds[0]!, r.no_expansion, r.no_extrapolation]) expect(arm.mean).toBeOneOf([0, 1])
    expect(Object.keys(r.runs[0]!).sort()).toEqual(["core", "no_expansion", "no_extrapolation", "seed"])
    expect(tiddlywikis()).toEqual([])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}, 300_000)
