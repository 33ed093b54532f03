/**
 * `bun core graph show` and `bun core audit trajectory` through the real CLI, on one real
 * run (real Chromium, the bundled sites, seeded exploration policy): two rounds on a task
 * the policy half-solves in round 1 — partials (the booking's email read where neither the
 * demo's path nor its goal-state path reads it) whose expansion adds paths — and a question
 * task whose page-specific LFs most of its episodes never satisfy (fails).
 * Everything the commands print is checked against the run's own events.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core, expectOneLineError } from "./support/cli.ts"

const EASY = "travel-booking-email-1"
const HARD = "travel-departure-time-1"
const tmp = mkdtempSync(join(tmpdir(), "core-cli-graph-audit-"))
const flags = ["--store", "embedded", "--data-dir", join(tmp, "data")]
const jsonl = (text: string) =>
  text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))

let runId: string
let events: Array<any>
let instructions: Map<string, string>
const byType = (type: string, stream?: string) => events.filter((e) => e.type === type && (stream === undefined || e.stream === stream))
const recordedOf = (id: string) => byType("TrajectoryRecorded").find((e) => e.data.trajectoryId === id).data
const verifiedOf = (id: string) => byType("TrajectoryVerified").find((e) => e.data.trajectoryId === id).data
/** A trajectory with this label, from the log. */
const withLabel = (label: string, round?: number) => {
  const v = byType("TrajectoryVerified").find(
    (e) => e.data.verdict === label && (round === undefined || recordedOf(e.data.trajectoryId).round === round)
  )
  if (v === undefined) throw new Error(`the run has no ${label} trajectory${round === undefined ? "" : ` in round ${round}`}`)
  return v.data.trajectoryId as string
}
const audit = async (id: string, ...extra: Array<string>) => {
  const r = await core(["audit", "trajectory", id, "--json", ...extra, ...flags])
  if (r.code !== 0) throw new Error(`audit trajectory ${id} failed: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

beforeAll(async () => {
  const r = await core([
    "run",
    "--tasks",
    `${EASY},${HARD}`,
    "--rounds",
    "2",
    "--samples",
    "2",
    "--step-budget",
    "4",
    "--seed",
    "2",
    "--json",
    ...flags
  ])
  if (r.code !== 0) throw new Error(`bun core run failed: ${r.stderr.slice(-2000)}`)
  runId = JSON.parse(r.stdout).run_id
  events = jsonl((await core(["events", "tail", "--no-follow", "--filter", `run.${runId}.>`, ...flags])).stdout)
  const tasks = jsonl((await core(["events", "tail", "--no-follow", "--filter", "ws.task.>", ...flags])).stdout)
  instructions = new Map(tasks.map((e) => [e.data.taskId, e.data.instruction]))
}, 180_000)
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe("the run", () => {
  test("has a pass, a partial and a fail, and expansion grew a graph between rounds", () => {
    const labels = byType("TrajectoryVerified").map((e) => e.data.verdict)
    expect(labels).toContain("pass")
    expect(labels).toContain("partial")
    expect(labels).toContain("fail")
    expect(byType("PathAdded", `run.${runId}.graph.${EASY}`).some((e) => e.data.source.kind === "trajectory")).toBe(true)
  })
})

describe("graph show", () => {
  /** Two episodes of a round can log the same node or path before either is folded: the first fact counts, as in the graph. */
  const firstOf = <T>(items: ReadonlyArray<T>, id: (t: T) => string): Array<T> =>
    items.filter((t, i) => items.findIndex((u) => id(u) === id(t)) === i)
  const graphEvents = (task: string) => {
    const stream = `run.${runId}.graph.${task}`
    return {
      nodes: firstOf(
        byType("NodeExpanded", stream).map((e) => e.data),
        (n) => n.nodeId
      ),
      paths: firstOf(
        byType("PathAdded", stream).map((e) => e.data),
        (p) => p.pathId
      )
    }
  }

  test("--json: the nodes and paths of the run's NodeExpanded and PathAdded events", async () => {
    for (const task of [EASY, HARD]) {
      const r = await core(["graph", "show", task, "--json", ...flags])
      expect(r.code).toBe(0)
      const g = JSON.parse(r.stdout)
      const { nodes, paths } = graphEvents(task)
      expect(g.run_id).toBe(runId)
      expect(g.task).toBe(task)
      expect(g.nodes.map((n: any) => [n.node_id, n.lf_id, n.how])).toEqual(nodes.map((n) => [n.nodeId, n.lfId, n.how]))
      expect(g.paths.map((p: any) => [p.path_id, p.node_ids, p.source])).toEqual(paths.map((p) => [p.pathId, p.nodeIds, p.source]))
      // The same graph, asked for by its run.
      expect(JSON.parse((await core(["graph", "show", task, "--json", "--run", runId, ...flags])).stdout)).toEqual(g)
    }
    expect(graphEvents(EASY).paths.length).toBeGreaterThanOrEqual(2)
  }, 60_000)

  test("text, dot and mermaid show every node and every path's edges", async () => {
    const { nodes, paths } = graphEvents(EASY)
    const text = await core(["graph", "show", EASY, ...flags])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(`run ${runId}`)
    expect(text.stdout).toContain(`strategy graph ${EASY}: ${nodes.length} node(s), ${paths.length} path(s)`)
    for (const n of nodes) expect(text.stdout).toContain(`${n.nodeId} [${n.how}] ${n.description}`)
    for (const p of paths)
      expect(text.stdout).toContain(
        `${p.pathId}: start → ${p.nodeIds.map((id: string) => `${id} ${JSON.stringify(nodes.find((n) => n.nodeId === id).description)}`).join(" → ")} → end`
      )

    const dot = await core(["graph", "show", EASY, "--format", "dot", ...flags])
    expect(dot.code).toBe(0)
    expect(dot.stdout.startsWith(`digraph "strategy graph ${EASY}" {`)).toBe(true)
    const mermaid = await core(["graph", "show", EASY, "--format", "mermaid", ...flags])
    expect(mermaid.code).toBe(0)
    expect(mermaid.stdout.startsWith("flowchart LR\n")).toBe(true)
    const dotEdges = new Set(
      dot.stdout
        .split("\n")
        .filter((l) => l.includes(" -> "))
        .map((l) => l.trim())
    )
    const mermaidEdges = new Set(
      mermaid.stdout
        .split("\n")
        .filter((l) => l.includes(" --> "))
        .map((l) => l.trim())
    )
    const expectedDot = new Set<string>()
    const expectedMermaid = new Set<string>()
    for (const p of paths) {
      const seq = p.nodeIds as Array<string>
      for (let i = 0; i <= seq.length; i++) {
        expectedDot.add(`"${i === 0 ? "@start" : seq[i - 1]}" -> "${i === seq.length ? "@end" : seq[i]}";`)
        expectedMermaid.add(`${i === 0 ? "start" : seq[i - 1]} --> ${i === seq.length ? "finish" : seq[i]}`)
      }
    }
    expect(dotEdges).toEqual(expectedDot)
    expect(mermaidEdges).toEqual(expectedMermaid)
    for (const n of nodes) {
      expect(dot.stdout).toContain(`"${n.nodeId}" [shape=box`)
      expect(mermaid.stdout).toContain(`  ${n.nodeId}[`)
    }
  }, 60_000)

  test("bad input: one-line errors", async () => {
    const [unknownTask, noGraph, badFormat, unknownRun, pattern, none] = await Promise.all([
      core(["graph", "show", "no-such-task", ...flags]),
      // A bundled task this run did not touch: no graph yet.
      core(["graph", "show", "shop-open-category-1", ...flags]),
      core(["graph", "show", EASY, "--format", "svg", ...flags]),
      core(["graph", "show", EASY, "--run", "run-nope", ...flags]),
      core(["graph", "show", "shop.*", ...flags]),
      core(["graph", "show", ...flags])
    ])
    for (const r of [unknownTask, noGraph, badFormat, unknownRun, pattern, none]) expectOneLineError(r, expect)
    expect(unknownTask.stderr).toContain("unknown task no-such-task")
    expect(noGraph.stderr).toContain("run bun core run")
    expect(badFormat.stderr).toContain("--format must be one of text, dot, mermaid")
    expect(unknownRun.stderr).toContain("run run-nope not found")
  }, 60_000)
})

describe("audit trajectory", () => {
  /** What every audit must agree on with the log, whatever its label. */
  const checkAgainstLog = (a: any, id: string) => {
    const recorded = recordedOf(id)
    const verified = verifiedOf(id)
    expect(a.task).toBe(recorded.taskId)
    expect(a.instruction).toBe(instructions.get(recorded.taskId))
    expect(a.trajectory).toMatchObject({
      id,
      run_id: runId,
      round: recorded.round,
      sample: recorded.sample,
      policy: recorded.policy,
      outcome: recorded.outcome
    })
    expect(a.trajectory.steps.map((s: any) => s.action)).toEqual(recorded.steps.map((s: any) => s.action))
    expect(a.label).toBe(verified.verdict)
    // The records the round's dataset made of it, as the log has them.
    const records = events.filter((e) => e.type === "DatasetRecordEmitted" && e.data.trajectoryIds.includes(id))
    expect(a.dataset_records.map((r: any) => [r.record_id, r.format, r.round]).sort()).toEqual(
      records.map((e) => [e.data.recordId, e.data.format, e.data.round]).sort()
    )
    // Every verified trajectory gets a step-reward rollout record.
    expect(a.dataset_records.some((r: any) => r.format === "rollout")).toBe(recorded.steps.length > 0 && verified.verdict !== "infra-error")
    // Every LF the verdict evaluated is there, with the verdict's own evidence.
    expect(a.label_functions.map((lf: any) => lf.lf_id).sort()).toEqual(verified.evidence.map((ev: any) => ev.lfId).sort())
    for (const lf of a.label_functions) {
      const ev = verified.evidence.find((x: any) => x.lfId === lf.lf_id)
      expect(lf.verdict.satisfied_at).toBe(ev.satisfiedAt)
      expect(lf.verdict.error).toBe(ev.error)
      expect(lf.code).toContain("function labelFunction(t)")
      expect(lf.inference.method).toBe("embedded")
      expect(lf.validation.onPrefix).toBe(false)
      if (ev.satisfiedAt >= 0) {
        // The step evidence is the action actually taken there, and the page after it.
        expect(lf.verdict.step.index).toBe(ev.satisfiedAt)
        expect(lf.verdict.step.action).toEqual(recorded.steps[ev.satisfiedAt].action)
        expect(lf.verdict.step.url).toBe(recorded.steps[ev.satisfiedAt].observation.url)
      } else expect(lf.verdict.step).toBeNull()
    }
    const demo = `${recorded.taskId}-script`
    expect(a.demos.map((d: any) => d.demo_id)).toContain(demo)
    const keySteps = byType("KeyStepsIdentified").find((e) => e.data.source.id === demo).data.keySteps
    expect(a.key_steps.filter((k: any) => k.source.id === demo).map((k: any) => [k.step_index, k.description, k.reason])).toEqual(
      keySteps.map((k: any) => [k.stepIndex, k.description, k.reason])
    )
  }

  test("a pass: its LFs, the step that satisfied each, and the path matched in order", async () => {
    const id = withLabel("pass")
    const a = await audit(id)
    checkAgainstLog(a, id)
    expect(a.label).toBe("pass")
    const verified = verifiedOf(id)
    expect(a.path.matched).toBe(true)
    expect(a.path.node_ids).toEqual(verified.path)
    expect(a.path.steps.map((s: any) => s.node_id)).toEqual(verified.path)
    const graphStream = `run.${runId}.graph.${a.task}`
    const path = byType("PathAdded", graphStream).find((e) => JSON.stringify(e.data.nodeIds) === JSON.stringify(verified.path)).data
    expect(a.path.path_id).toBe(path.pathId)
    // Which kind of evidence held: a way, or the goal's state on its pages (data rules 9), as PathAdded says.
    expect(a.path.evidence).toBe(path.evidence ?? "way")
    const steps = a.path.steps.map((s: any) => s.step)
    for (let i = 0; i < steps.length; i++) {
      expect(steps[i]).toBeGreaterThanOrEqual(0)
      if (i > 0) expect(steps[i]).toBeGreaterThan(steps[i - 1])
      const lf = a.label_functions.find((x: any) => x.node_id === a.path.steps[i].node_id)
      expect(lf.verdict.satisfied_at).toBeLessThanOrEqual(steps[i])
    }
    // Round 2 passed on a path round 1's expansion added: the audit names where it came from.
    if (path.source.kind === "trajectory") expect(a.expanded_from).toContain(path.source.id)

    const text = await core(["audit", "trajectory", id, ...flags])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(`trajectory ${id} — run ${runId}`)
    expect(text.stdout).toContain(`matched ${path.pathId}: the verdict's path is start → ${verified.path.join(" → ")} → end`)
    expect(text.stdout).toMatch(/^label\s+pass$/m)
    expect(text.stdout.includes("goal-state evidence:")).toBe(a.path.evidence === "goal-state")
    expect(text.stdout).toMatch(/^dataset records\n {2}[0-9a-f]{12} /m)
    const first = a.path.steps[0]
    const action = recordedOf(id).steps[first.step].action
    const target = `${action.target.role} ${JSON.stringify(action.target.name)}`
    const shown =
      action.kind === "type"
        ? `type ${JSON.stringify(action.text)} into ${target}`
        : action.kind === "select"
          ? `select ${JSON.stringify(action.value)} in ${target}`
          : `${action.kind} ${target}`
    expect(text.stdout).toContain(`held at step ${first.step}: ${shown}`)

    // The same audit by <runId>/<trajectoryId> and by --run.
    expect(await audit(`${runId}/${id}`)).toEqual(a)
    expect(await audit(id, "--run", runId)).toEqual(a)
  }, 60_000)

  test("a partial: some LFs hold, no path does — judged against the graph as its round started, not the final one", async () => {
    const id = withLabel("partial", 1)
    const a = await audit(id)
    checkAgainstLog(a, id)
    expect(a.label).toBe("partial")
    expect(a.path).toMatchObject({ matched: false, path_id: null, node_ids: null, steps: [] })
    expect(a.label_functions.some((lf: any) => lf.verdict.satisfied_at >= 0)).toBe(true)
    // Round 1 used the demo paths only; expansion added more afterwards.
    const demoPaths = byType("PathAdded", `run.${runId}.graph.${a.task}`)
      .filter((e) => e.data.source.kind === "demo")
      .map((e) => e.data.pathId)
    expect(a.graph.paths.map((p: any) => p.path_id)).toEqual(demoPaths)
    // The round's graph holds the demo's way and its goal-state path, each marked.
    const added = byType("PathAdded", `run.${runId}.graph.${a.task}`).filter((e) => e.data.source.kind === "demo")
    expect(a.graph.paths.map((p: any) => p.evidence)).toEqual(added.map((e) => e.data.evidence ?? "way"))
    expect(a.graph.paths.map((p: any) => p.evidence)).toContain("goal-state")
    expect(a.expanded_from).toEqual([])
    const final = JSON.parse((await core(["graph", "show", a.task, "--json", ...flags])).stdout)
    expect(final.paths.length).toBeGreaterThan(a.graph.paths.length)
    expect(a.path.candidates.map((c: any) => c.path_id)).toEqual(demoPaths)
    const text = await core(["audit", "trajectory", id, ...flags])
    expect(text.stdout).toMatch(/^label\s+partial$/m)
    expect(text.stdout).toContain("none matched")
  }, 60_000)

  test("a fail: no LF of the graph holds", async () => {
    const id = withLabel("fail")
    const a = await audit(id)
    checkAgainstLog(a, id)
    expect(a.label).toBe("fail")
    expect(a.label_functions.length).toBeGreaterThan(0)
    for (const lf of a.label_functions) expect(lf.verdict).toMatchObject({ satisfied_at: -1, step: null })
    expect(a.path.matched).toBe(false)
    expect(a.path.candidates.every((c: any) => c.held_in_order === 0)).toBe(true)
    const text = await core(["audit", "trajectory", id, ...flags])
    expect(text.stdout).toMatch(/^label\s+fail$/m)
    expect(text.stdout).toContain("did not hold")
  }, 60_000)

  test("audit label-function finds an LF that expansion inferred (in the run's graph stream)", async () => {
    const lf = byType("LabelFunctionInferred").find((e) => e.stream.startsWith(`run.${runId}.graph.`))
    expect(lf).toBeDefined()
    const r = await core(["audit", "label-function", lf.data.lfId, "--json", ...flags])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ lf_id: lf.data.lfId, source: { kind: "trajectory" }, run_id: runId, code: lf.data.code })
  }, 60_000)

  test("bad input: one-line errors", async () => {
    const id = withLabel("pass")
    const [unknown, ...rest] = await Promise.all([
      core(["audit", "trajectory", "r9-s9-no-such-task", ...flags]),
      core(["audit", "trajectory", `run-nope/${id}`, ...flags]),
      core(["audit", "trajectory", id, "--run", "run-nope", ...flags]),
      core(["audit", "trajectory", "a/b/c", ...flags]),
      core(["audit", "trajectory", `${runId}/${id}`, "--run", "run-other", ...flags]),
      core(["audit", "trajectory", ...flags])
    ])
    expectOneLineError(unknown!, expect)
    expect(unknown!.stderr).toContain("no trajectory r9-s9-no-such-task")
    for (const r of rest) expectOneLineError(r, expect)
  }, 60_000)
})
