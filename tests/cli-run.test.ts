/**
 * `bun core run` as a user meets it: two rounds on real bundled tasks in real Chromium —
 * scripted expert demos ingested, label functions inferred, rollouts by the seeded
 * exploration policy, verdicts against the strategy graphs, expansion — on the embedded
 * store and on real NATS; then replayed with 0 divergences, the graphs rebuilt from the log
 * by the projection, a what-if with a changed label function, and the same seed giving the
 * same trajectories whatever the parallelism.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { cleanEnv, core, expectOneLineError, REPO, spawnCore } from "./support/cli.ts"
import { parseConsoleLine, signIn } from "./support/console.ts"

const tmp = mkdtempSync(join(tmpdir(), "core-cli-run-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const oneLineError = (r: { code: number; stderr: string; stdout: string }, message: RegExp) => {
  expectOneLineError(r, expect)
  expect(r.stderr).toMatch(message)
}
const jsonl = (text: string): Array<any> =>
  text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
const TASKS = "shop-open-category-1,forum-open-board-1"
const own = new Set(TASKS.split(","))

const tail = async (flags: ReadonlyArray<string>, filter: string, type?: string) => {
  const r = await core(["events", "tail", "--no-follow", "--filter", filter, ...(type ? ["--type", type] : []), ...flags])
  expect(r.code).toBe(0)
  return jsonl(r.stdout)
}

describe.each([["embedded"], ["nats"]])("two rounds on the %s store", (store) => {
  const dir = join(tmp, store)
  const flags = ["--store", store, "--data-dir", dir]
  let metrics: any
  let stderr = ""
  let served = 0
  beforeAll(async () => {
    const seed = `cli-run-${store}-1`
    const args = ["run", "--tasks", TASKS, "--rounds", "2", "--samples", "3", "--seed", seed, "--json", ...flags]
    if (store === "nats") {
      const r = await core(args)
      stderr = r.stderr
      if (r.code !== 0) throw new Error(`run failed: ${r.stderr.slice(-3000)}`)
      metrics = JSON.parse(r.stdout)
      return
    }
    // On one store the console serves beside the run, and answers while the run goes on.
    const proc = spawnCore([...args, "--ui"])
    const out = new Response(proc.stdout).text()
    const reader = proc.stderr.pipeThrough(new TextDecoderStream()).getReader()
    let printed: ReturnType<typeof parseConsoleLine>
    while (printed === undefined) {
      const { value, done } = await reader.read()
      if (done) break
      stderr += value
      printed = parseConsoleLine(stderr)
    }
    if (printed === undefined || !printed.url.startsWith("http://127.0.0.1:"))
      throw new Error(`run --ui printed no console URL with its token: ${stderr.slice(-3000)}`)
    served = (await fetch(`${printed.url}/`, { headers: { cookie: await signIn(printed.open) } })).status
    for (let r = await reader.read(); !r.done; r = await reader.read()) stderr += r.value
    if ((await proc.exited) !== 0) throw new Error(`run failed: ${stderr.slice(-3000)}`)
    metrics = JSON.parse(await out)
  }, 600_000)

  test("every rollout is verified, the rounds complete, progress is on stderr", async () => {
    expect(metrics.tasks).toBe(2)
    // Per task and round: 3 rollouts and 3 explorer episodes.
    expect(metrics.trajectories).toBe(2 * 6 * 2)
    expect(metrics.pass + metrics.partial + metrics.fail + metrics.infra_errors).toBe(24)
    expect(metrics.tasks_with_alternatives).toBe(2)
    expect(stderr).toMatch(/round 1\/2 \[#+\] 12\/12 trajectories/)
    expect(stderr).toContain(`store: ${store}`)
    if (store === "embedded") expect(served).toBe(200)
    // Round 0 is the demos' round: it completes at once, with its dataset.
    const rounds = await tail(flags, `run.${metrics.run_id}.round.*`, "RoundCompleted")
    expect(rounds.map((e) => e.data.round)).toEqual([0, 1, 2])
    const extrapolated = await tail(flags, `run.${metrics.run_id}.round.*`, "RoundExtrapolated")
    expect(extrapolated.map((e) => e.data.round)).toEqual([0, 1, 2])
    // Tasks extrapolated from round 1 join round 2's pool with 2 rollouts each.
    expect(rounds.map((e) => e.data.counts.trajectories)).toEqual([undefined, 12, 12 + 2 * extrapolated[1].data.newTaskIds.length])
    const verified = (await tail(flags, `run.${metrics.run_id}.traj.*`, "TrajectoryVerified")).filter((v) => own.has(v.data.taskId))
    expect(verified).toHaveLength(24)
    expect(verified.filter((v) => v.data.trajectoryId.startsWith("x")).length).toBe(12)
    // A pass names the path whose LFs held in order; anything else names none.
    for (const v of verified) expect(v.data.path === null).toBe(v.data.verdict !== "pass")
    expect(metrics.verdict_vs_ground_truth.predicted_pass).toBe(metrics.pass)
    // Exploration 5: an episode whose trajectory came to satisfy a path said complete there and ended; each such one passes.
    const verdicts = new Map(verified.map((v) => [v.data.trajectoryId, v.data.verdict]))
    const finished = (await tail(flags, `run.${metrics.run_id}.traj.*`, "TrajectoryRecorded")).filter((t) => t.data.finished !== undefined)
    expect(finished.length).toBeGreaterThan(0)
    for (const t of finished) {
      expect(t.data.steps.length).toBe(t.data.finished.step + 1)
      expect(t.data.steps.at(-1).action).toEqual({ kind: "status", status: "complete" })
      if (own.has(t.data.taskId)) expect(verdicts.get(t.data.trajectoryId)).toBe("pass")
    }
  }, 120_000)

  test("each round's dataset is sealed before the next round starts, with every record it counts; extrapolated tasks name their lineage", async () => {
    const log = await tail(flags, `run.${metrics.run_id}.>`)
    const at = (type: string, round: number) => log.findIndex((e) => e.type === type && e.data.round === round)
    for (const round of [0, 1, 2]) {
      const seal = log[at("DatasetSealed", round)]
      expect(seal).toBeDefined()
      const records = log.filter((e) => e.type === "DatasetRecordEmitted" && e.data.round === round)
      expect(records.length).toBe(seal.data.recordCount)
      for (const f of ["sft", "dpo", "rollout"]) expect(records.filter((r) => r.data.format === f).length).toBe(seal.data.counts[f])
      expect(at("DatasetSealed", round)).toBeGreaterThan(
        log.findLastIndex((e) => e.type === "DatasetRecordEmitted" && e.data.round === round)
      )
      if (round < 2) expect(at("DatasetSealed", round)).toBeLessThan(at("RoundStarted", round + 1))
    }
    const ids = log.filter((e) => e.type === "DatasetRecordEmitted").map((e) => e.data.recordId)
    expect(new Set(ids).size).toBe(ids.length)
    // Round 0 is the demos as sft records; later rounds have rollout records for every verified trajectory.
    expect(log.filter((e) => e.type === "DatasetRecordEmitted" && e.data.round === 0).every((e) => e.data.format === "sft")).toBe(true)
    // Every sft record says where its steps came from: a demo in round 0, then verified episodes and pseudo-demos.
    const sft = log.filter((e) => e.type === "DatasetRecordEmitted" && e.data.format === "sft")
    const kinds = (round: number) => new Set(sft.filter((e) => e.data.round === round).map((e) => e.data.body.meta.origin?.kind))
    expect([...kinds(0)]).toEqual(["demo"])
    for (const round of [1, 2]) for (const kind of kinds(round)) expect(["verified", "pseudo-demo"]).toContain(kind)
    expect(metrics.datasets.rounds_sealed).toBe(3)
    const trajectories = new Set(log.filter((e) => e.type === "TrajectoryRecorded").map((e) => e.data.trajectoryId))
    const tasks = log.filter((e) => e.type === "TaskExtrapolated")
    expect(tasks.length).toBe(metrics.extrapolated.tasks)
    for (const t of tasks) {
      expect(own.has(t.data.lineage.parentTaskId)).toBe(true)
      expect(t.data.lineage.parentTrajectoryIds.every((id: string) => trajectories.has(id))).toBe(true)
      // Its pseudo-demo went through Semantic Code Abstraction: a path of its own.
      expect(log.some((e) => e.type === "PathAdded" && e.data.taskId === t.data.newTaskId)).toBe(true)
    }
    // The audit of a trajectory lists the records it is in.
    const record = log.find((e) => e.type === "DatasetRecordEmitted" && e.data.format === "rollout")
    const audit = JSON.parse(
      (await core(["audit", "trajectory", record.data.trajectoryIds[0], "--run", metrics.run_id, "--json", ...flags])).stdout
    )
    expect(audit.dataset_records.map((r: any) => r.record_id)).toContain(record.data.recordId)
    // A trainer can trust it: every sft step shows its screen, pseudo-demos close, pairs are credited.
    const check = await core(["dataset", "check", "--run", metrics.run_id, "--json", ...flags])
    expect(JSON.parse(check.stdout)).toMatchObject({ problems: [], warnings: { "dpo-uncredited-legacy": 0 } })
    expect(check.code).toBe(0)
  }, 120_000)

  test("replay re-derives the run with 0 divergences", async () => {
    const r = await core(["replay", metrics.run_id, "--json", ...flags])
    expect(r.stderr).not.toContain("error")
    const report = JSON.parse(r.stdout)
    expect(report.divergences).toEqual([])
    expect(report.decision_events).toBeGreaterThan(24 * 3)
    expect(r.code).toBe(0)
  }, 300_000)

  test("the graph tables rebuilt from the log hold every node and path the run added", async () => {
    const db = ["--database-url", `sqlite:${join(dir, "projections.db")}`]
    expect((await core(["db", "project", ...db, ...flags])).code).toBe(0)
    const check = await core(["replay", metrics.run_id, "--projections", "--json", ...db, ...flags])
    expect(JSON.parse(check.stdout).projection_digest_match).toBe(true)
    const paths = await tail(flags, `run.${metrics.run_id}.graph.*`, "PathAdded")
    expect(paths.length).toBeGreaterThanOrEqual(2)
    // The explorer found another way on these tasks (its detours rejoin the demo): a path from one of its episodes.
    expect(paths.some((p) => p.data.source.id.startsWith("x"))).toBe(true)
    const { Database } = await import("bun:sqlite")
    const sqlite = new Database(join(dir, "projections.db"), { readonly: true })
    try {
      const rows = sqlite
        .query("select task_id, path_id, node_ids, signature from graph_paths where run_id = ? order by task_id, path_id")
        .all(metrics.run_id) as Array<any>
      // Every path of a new run carries its signature: what the read model counts distinct paths by.
      expect(rows.every((r) => typeof r.signature === "string")).toBe(true)
      const logged = paths
        .map((p) => ({
          task_id: p.data.taskId,
          path_id: p.data.pathId,
          node_ids: JSON.stringify(p.data.nodeIds),
          signature: p.data.signature
        }))
        .sort((a, b) => (a.task_id !== b.task_id ? (a.task_id < b.task_id ? -1 : 1) : a.path_id < b.path_id ? -1 : 1))
      expect(rows.map((r) => ({ ...r, node_ids: JSON.stringify(JSON.parse(r.node_ids)) }))).toEqual(logged)
    } finally {
      sqlite.close()
    }
  }, 300_000)
})

test("what-if: a final-status LF that never holds turns the passes that need it into partials, and nothing else flips", async () => {
  const flags = ["--store", "embedded", "--data-dir", join(tmp, "embedded")]
  const runs = await tail(flags, "run.*.run.*", "RunStarted")
  const runId = runs.at(-1)!.runId as string
  const verified = await tail(flags, `run.${runId}.traj.*`, "TrajectoryVerified")
  const nodes = await tail(flags, `run.${runId}.graph.*`, "NodeExpanded")
  const passing = verified.find((v) => v.data.verdict === "pass")
  expect(passing).toBeDefined()
  // Every path ends with the task's final status (demos and expansions alike): its LF is the one replaced.
  const node = nodes.find((n) => n.data.nodeId === passing.data.path.at(-1) && n.data.taskId === passing.data.taskId)
  expect(node.data.semanticKey.actionKind).toBe("status")
  const file = join(tmp, "never.js")
  writeFileSync(file, "function labelFunction(t) {\n  return -1\n}\n")
  const r = await core(["replay", runId, "--with-lf", `${node.data.lfId.slice(0, 12)}=${file}`, "--json", ...flags])
  expect(r.code).toBe(0)
  const report = JSON.parse(r.stdout)
  expect(report.replaced).toEqual([node.data.lfId])
  expect(report.trajectories).toBe(verified.length)
  const paths = await tail(flags, `run.${runId}.graph.*`, "PathAdded")
  const nodesWithIt = new Set(nodes.filter((n) => n.data.lfId === node.data.lfId).map((n) => `${n.data.taskId}|${n.data.nodeId}`))
  const needs = (taskId: string, nodeIds: ReadonlyArray<string>) => nodeIds.some((id) => nodesWithIt.has(`${taskId}|${id}`))
  const flipped = new Set(report.flips.map((f: any) => f.trajectoryId))
  for (const f of report.flips) expect([f.logged, f.rederived]).toEqual(["pass", "partial"])
  for (const v of verified.filter((v) => v.data.verdict === "pass")) {
    // Every path of its task needs the LF: the pass must flip. Its own path does not: it cannot.
    const taskPaths = paths.filter((p) => p.data.taskId === v.data.taskId).map((p) => p.data.nodeIds)
    if (taskPaths.every((ids) => needs(v.data.taskId, ids))) expect(flipped.has(v.data.trajectoryId)).toBe(true)
    if (!needs(v.data.taskId, v.data.path)) expect(flipped.has(v.data.trajectoryId)).toBe(false)
  }
  expect(
    flipped.has(passing.data.trajectoryId) ||
      paths.some((p) => p.data.taskId === passing.data.taskId && !needs(p.data.taskId, p.data.nodeIds))
  ).toBe(true)
  oneLineError(await core(["replay", runId, "--with-lf", "zzz=nofile", ...flags]), /--with-lf takes <lf-id>=<file>/)
  oneLineError(await core(["replay", runId, "--with-lf", `abcdef0123=${file}`, ...flags]), /has no label function abcdef0123/)
}, 300_000)

test("the same seed gives the same trajectories with one browser context or two", async () => {
  const actions = async (parallel: string) => {
    const flags = ["--store", "embedded", "--data-dir", join(tmp, `parallel-${parallel}`)]
    const r = await core([
      "run",
      "--tasks",
      "shop-open-product-1",
      "--samples",
      "3",
      "--seed",
      "same-seed",
      "--parallel",
      parallel,
      "--json",
      ...flags
    ])
    if (r.code !== 0) throw new Error(r.stderr.slice(-2000))
    const recorded = await tail(flags, `run.${JSON.parse(r.stdout).run_id}.traj.*`, "TrajectoryRecorded")
    return recorded.map((e) => [e.data.trajectoryId, e.data.steps.map((s: any) => s.action)])
  }
  const one = await actions("1")
  expect(one).toHaveLength(6)
  expect(await actions("2")).toEqual(one)
}, 600_000)

test("bad input: one-line errors", async () => {
  const flags = ["--store", "embedded", "--data-dir", join(tmp, "bad")]
  oneLineError(await core(["run", "--rounds", "0", ...flags]), /--rounds must be a whole number ≥ 1, got 0/)
  oneLineError(await core(["run", "--suite", "nope", ...flags]), /unknown suite 'nope'/)
  oneLineError(await core(["run", "--platform", "android", ...flags]), /--platform android: the bundled tasks are web sites/)
  oneLineError(await core(["run", "--tasks", "shop-nope-1", ...flags]), /no train task shop-nope-1/)
  oneLineError(await core(["run", "--site", "mars", ...flags]), /unknown site 'mars'/)
}, 60_000)

test("an interrupted run resumes where its log ends, and the resumed run replays with 0 divergences", async () => {
  const flags = ["--store", "embedded", "--data-dir", join(tmp, "resume")]
  const proc = Bun.spawn(
    [
      "bun",
      "apps/cli/main.ts",
      "run",
      "--tasks",
      "shop-open-category-1",
      "--rounds",
      "2",
      "--samples",
      "2",
      "--seed",
      "resume-1",
      ...flags
    ],
    {
      cwd: REPO,
      env: cleanEnv(),
      stdout: "pipe",
      stderr: "pipe"
    }
  )
  // Killed once round 1 is complete: round 2's rollouts are not in the log yet.
  let err = ""
  const decoder = new TextDecoder()
  for await (const chunk of proc.stderr) {
    err += decoder.decode(chunk)
    if (/run: round 1: /.test(err)) break
  }
  proc.kill("SIGKILL")
  await proc.exited
  const runId = err.match(/run (run-[a-z0-9-]+):/)![1]!
  const before = await tail(flags, `run.${runId}.>`)
  expect(before.filter((e) => e.type === "RoundCompleted").map((e) => e.data.round)).toEqual([0, 1])
  const r = await core(["run", "--resume", runId, "--json", ...flags])
  if (r.code !== 0) throw new Error(r.stderr.slice(-2000))
  expect(r.stderr).toContain(`resuming after ${before.length} logged events`)
  const metrics = JSON.parse(r.stdout)
  expect(metrics.run_id).toBe(runId)
  // One task, two rounds, each with 2 rollouts and 3 explorer episodes (extrapolated tasks apart).
  expect(metrics.trajectories).toBe(10)
  const after = await tail(flags, `run.${runId}.>`)
  // Nothing logged before was written again.
  expect(new Set(after.map((e) => e.id)).size).toBe(after.length)
  expect(after.slice(0, before.length).map((e) => e.id)).toEqual(before.map((e) => e.id))
  expect(after.filter((e) => e.type === "RoundCompleted").map((e) => e.data.round)).toEqual([0, 1, 2])
  const replay = JSON.parse((await core(["replay", runId, "--json", ...flags])).stdout)
  expect(replay.divergences).toEqual([])
  oneLineError(await core(["run", "--resume", "run-nope", ...flags]), /run run-nope not found/)
  oneLineError(await core(["run", "--resume", runId, "--rounds", "3", ...flags]), /--rounds cannot change it/)
}, 600_000)

describe("eval", () => {
  const flags = ["--store", "embedded", "--data-dir", join(tmp, "embedded")]

  test("the policy a run trained, through round 0 (the demos) and its last round, on the held-out tasks of its sites, by the checkers", async () => {
    const runs = await tail(flags, "run.*.run.*", "RunStarted")
    const runId = runs.at(-1)!.runId as string
    const [bc, last] = await Promise.all(
      [0, 2].map(async (round) => {
        const r = await core([
          "eval",
          "--suite",
          "held-out",
          "--policy",
          "embedded",
          "--round",
          String(round),
          "--run",
          runId,
          "--parallel",
          "1",
          "--json",
          ...flags
        ])
        if (r.code !== 0) throw new Error(r.stderr.slice(-2000))
        return JSON.parse(r.stdout)
      })
    )
    for (const r of [bc, last]) {
      expect(r.run).toBe(runId)
      // shop and forum held-out instances (15 each), one episode each
      expect(Object.keys(r.per_task).length).toBe(30)
      expect(Object.keys(r.per_task).every((t) => /^(shop|forum)-/.test(t))).toBe(true)
      expect(r.episodes).toBe(30)
      expect(r.successes).toBe(Object.values(r.per_task).filter((x) => x === 1).length)
    }
    // Round 0 is the two demos; the last round learned from the rounds' verified trajectories too.
    expect(bc.examples).toBeGreaterThan(0)
    expect(last.examples).toBeGreaterThan(bc.examples)
    oneLineError(await core(["eval", "--round", "9", "--run", runId, ...flags]), /round 9 dataset is not sealed/)
    oneLineError(await core(["eval", "--run", "run-nope", ...flags]), /run run-nope/)
  }, 600_000)

  test("--report on a mini-suite: bc, the rounds and both ablations, each with a bootstrap interval; a model already evaluated is not played again", async () => {
    const r = await core([
      "eval",
      "--report",
      "--seeds",
      "2",
      "--rounds",
      "1",
      "--site",
      "shop",
      "--tasks",
      "shop-open-category-1",
      "--report-samples",
      "1",
      "--held-out",
      "shop-open-category-3,shop-open-product-3",
      "--json",
      "--store",
      "embedded",
      "--data-dir",
      join(tmp, "report")
    ])
    if (r.code !== 0) throw new Error(r.stderr.slice(-3000))
    const report = JSON.parse(r.stdout)
    for (const arm of [report.bc, ...report.rounds, report.no_expansion, report.no_extrapolation]) {
      expect(Object.keys(arm).sort()).toEqual(["ci_high", "ci_low", "mean"])
      expect(arm.ci_low).toBeLessThanOrEqual(arm.mean)
      expect(arm.mean).toBeLessThanOrEqual(arm.ci_high)
      expect(arm.ci_high).toBeLessThanOrEqual(1)
    }
    expect(report.rounds).toHaveLength(1)
    expect(report.config).toMatchObject({ train_tasks: 1, held_out_tasks: 2, seeds: 2, rounds: 1, eval_seed: "report-eval" })
    expect(report.runs).toHaveLength(2)
    // The ablations are runs of their own: no explorer episode, no extrapolated task.
    const log = async (runId: string, type: string) =>
      jsonl(
        (
          await core([
            "events",
            "tail",
            "--no-follow",
            "--filter",
            `run.${runId}.>`,
            "--type",
            type,
            "--store",
            "embedded",
            "--data-dir",
            join(tmp, "report")
          ])
        ).stdout
      )
    expect((await log(report.runs[0].no_expansion, "TrajectoryRecorded")).some((e) => e.data.trajectoryId.startsWith("x"))).toBe(false)
    expect(await log(report.runs[0].no_extrapolation, "TaskExtrapolated")).toEqual([])
    expect(r.stderr).toMatch(/eval report: seed report-1: bc: \d+\/2 held-out episodes succeeded/)
    // behaviour cloning learns from the demos alone: seed 2's is seed 1's model, scored once
    expect(r.stderr).toMatch(/eval report: seed report-2: bc: the same model as one evaluated before: \d+\/2/)
    expect(report.runs[1].core).not.toBe(report.runs[0].core)
  }, 900_000)
})
