/**
 * `bun core audit trajectory <id> [--run RUN] [--json]`: why a trajectory got its label
 * (docs/architecture.md, "Replay": the audit) — the task, the demos its strategy graph came from, their key steps,
 * each label function of that graph (code, how it was inferred, its validation), each LF's
 * verdict on this trajectory with the step that satisfied it (the action taken there and the
 * page after it), the graph path that matched, the label, and the dataset records it fed.
 *
 * Everything comes from the log: the run's events and the workspace facts logged before it
 * ended, folded in log order with the run's own fold (evolveRun) up to the verdict, so the
 * graph shown is the one the verdict used (as its round started), not the final one.
 */
import { Effect } from "effect"
import { emptyGraph, sitePath } from "@core/domain"
import type { GraphNode, StrategyGraph } from "@core/domain"
import type {
  Action,
  CoreEvent,
  DataOf,
  LabelFunctionInferred,
  SourceRef,
  Target,
  TrajectoryRecorded,
  TrajectoryVerified
} from "@core/events"
import { evolveRun, initialRunState } from "@core/pipeline"
import type { RunState } from "@core/pipeline"
import type { Command } from "../Cli.ts"
import { CliError, UsageError } from "../Cli.ts"
import { openStore } from "../Store.ts"
import { isToken, readEvents, runExists, runLog, runsWith, unknownRun } from "../RunLog.ts"
import { commonConfigFlags } from "../ConfigFlags.ts"

type Of<T extends CoreEvent["type"]> = Extract<CoreEvent, { type: T }>
type Recorded = DataOf<typeof TrajectoryRecorded>
type Verified = DataOf<typeof TrajectoryVerified>
type Inferred = DataOf<typeof LabelFunctionInferred>

const sameSource = (a: SourceRef, b: SourceRef): boolean => a.kind === b.kind && a.id === b.id

// ---------------------------------------------------------------------------------------
// Actions and steps, for people and programs

const quote = (s: string): string => JSON.stringify(s)

const targetText = (t: Target | null): string => {
  if (t === null) return "(no target)"
  const label = t.name !== null && t.name.trim() !== "" ? t.name : t.text
  return [t.role ?? "element", label === null ? null : quote(label)].filter((x) => x !== null).join(" ")
}

export const actionText = (a: Action): string => {
  switch (a.kind) {
    case "click":
    case "long_press":
      return `${a.kind} ${targetText(a.target)}`
    case "type":
      return `type ${a.secretEnv === undefined ? quote(a.text) : `$${a.secretEnv}`} into ${targetText(a.target)}${a.submit === true ? " and press Enter" : ""}`
    case "select":
      return `select ${quote(a.value)} in ${targetText(a.target)}`
    case "scroll":
      return `scroll ${a.direction}${a.target === null ? "" : ` in ${targetText(a.target)}`}`
    case "key":
      return `key ${a.key}`
    case "navigate":
      return `navigate to ${sitePath(a.url, true)}`
    case "open_app":
      return `open app ${a.app}`
    case "answer":
      return `answer ${quote(a.text)}`
    case "status":
      return `status ${a.status}`
    case "wait":
      return `wait ${a.ms} ms`
    case "back":
    case "home":
      return a.kind
  }
}

export interface StepEvidence {
  readonly index: number
  readonly action: Action
  readonly summary: string
  /** The observation after the step: the page it led to. */
  readonly url: string | null
  readonly error: string | null
}

const stepOf = (t: Recorded, index: number): StepEvidence | null => {
  const s = index >= 0 ? t.steps[index] : undefined
  if (s === undefined) return null
  return { index, action: s.action, summary: actionText(s.action), url: s.observation.url, error: s.observation.error }
}

// The page as the app showed it, fragment included: a hash-routed app's page is its fragment
// (`/#Draft%20of%20'Generator%20G2'`), and an audit that cut it would show every step on `/`.
const stepLine = (s: StepEvidence): string =>
  `${s.summary} → ${sitePath(s.url, true) ?? "(no URL)"}${s.error === null ? "" : ` (error: ${s.error})`}`

// ---------------------------------------------------------------------------------------
// The audit, a pure function of the log

export interface TrajectoryAudit {
  readonly task: string
  readonly instruction: string | null
  readonly trajectory: {
    readonly id: string
    readonly run_id: string
    readonly round: number
    readonly sample: number
    readonly policy: string
    readonly outcome: Recorded["outcome"]
    readonly attempts: number
    readonly infra_error: string | null
    readonly steps: ReadonlyArray<StepEvidence>
  }
  /** The graph the verdict used: the task's graph as the trajectory's round started. */
  readonly graph: {
    readonly round: number
    readonly nodes: number
    readonly paths: ReadonlyArray<{ readonly path_id: string; readonly node_ids: ReadonlyArray<string>; readonly source: SourceRef }>
  }
  readonly demos: ReadonlyArray<{
    readonly demo_id: string
    readonly task: string | null
    readonly file: string | null
    readonly steps: number | null
  }>
  /** Trajectories of the run whose expansion added nodes or paths to that graph. */
  readonly expanded_from: ReadonlyArray<string>
  readonly key_steps: ReadonlyArray<{
    readonly source: SourceRef
    readonly step_index: number
    readonly description: string
    readonly reason: string | null
    readonly lf_id: string | null
    readonly rejected: string | null
  }>
  readonly label_functions: ReadonlyArray<{
    readonly lf_id: string
    readonly node_id: string
    readonly description: string
    readonly how: GraphNode["how"]
    readonly source: SourceRef
    readonly key_step_index: number | null
    readonly code: string | null
    readonly inference: Inferred["inference"] | null
    readonly validation: Inferred["validation"] | null
    readonly verdict: { readonly satisfied_at: number; readonly error: string | null; readonly step: StepEvidence | null } | null
  }>
  readonly path: {
    readonly matched: boolean
    readonly path_id: string | null
    readonly node_ids: ReadonlyArray<string> | null
    /** Along the matched path: where each node's LF held, recomputed from the from-step-0 evidence (null when it cannot tell). */
    readonly steps: ReadonlyArray<{
      readonly node_id: string
      readonly lf_id: string
      readonly description: string
      readonly step: number | null
      readonly evidence: StepEvidence | null
    }>
    /** Every path of the graph: how many of its nodes (from the start) held in order. */
    readonly candidates: ReadonlyArray<{
      readonly path_id: string
      readonly node_ids: ReadonlyArray<string>
      readonly held_in_order: number
    }>
  }
  readonly label: Verified["verdict"] | null
  /** The records it is in (a dpo record names it as chosen or rejected), and the tasks extrapolated from it. */
  readonly dataset_records: ReadonlyArray<{
    readonly record_id: string
    readonly format: string
    readonly round: number
    readonly task_id: string
    readonly as: string | null
  }>
  readonly extrapolated: ReadonlyArray<{
    readonly task_id: string
    readonly instruction: string
    readonly generator: string
    readonly pseudo_demo_steps: number
  }>
}

/** `nodeIds` walked with from-0 evidence: each node's step if it comes after the previous one's. */
const walkEvidence = (
  g: StrategyGraph,
  nodeIds: ReadonlyArray<string>,
  at: ReadonlyMap<string, number>
): Array<{ node: GraphNode | undefined; nodeId: string; step: number | null }> => {
  let prev = -1
  return nodeIds.map((nodeId) => {
    const node = g.nodes.find((n) => n.nodeId === nodeId)
    const a = node === undefined ? -1 : (at.get(node.lfId) ?? -1)
    const step = a > prev ? a : null
    if (step !== null) prev = step
    return { node, nodeId, step }
  })
}

const heldInOrder = (walked: ReadonlyArray<{ step: number | null }>): number => {
  const k = walked.findIndex((w) => w.step === null)
  return k === -1 ? walked.length : k
}

export const auditTrajectoryOf = (events: ReadonlyArray<CoreEvent>, runId: string, trajectoryId: string): TrajectoryAudit | string => {
  const stream = `run.${runId}.traj.${trajectoryId}`
  const recordedAt = events.findIndex((e) => e.type === "TrajectoryRecorded" && e.stream === stream)
  if (recordedAt === -1) return `trajectory ${trajectoryId} of run ${runId} was queued but never recorded (its rollout did not finish)`
  const recorded = (events[recordedAt] as Of<"TrajectoryRecorded">).data
  const verifiedAt = events.findIndex((e) => e.type === "TrajectoryVerified" && e.stream === stream)
  const verified = verifiedAt === -1 ? null : (events[verifiedAt] as Of<"TrajectoryVerified">).data
  // What the run knew when the verdict was made: everything logged before it.
  const before = events.slice(0, verifiedAt === -1 ? events.length : verifiedAt)
  const state: RunState = before.reduce(evolveRun, initialRunState)
  const taskId = recorded.taskId
  const graph = state.roundGraphs.get(taskId) ?? emptyGraph(taskId)

  const sources: Array<SourceRef> = []
  for (const s of [...graph.nodes.map((n) => n.source), ...graph.paths.map((p) => p.source)]) {
    if (!sources.some((x) => sameSource(x, s))) sources.push(s)
  }
  const inferred = before.filter((e): e is Of<"LabelFunctionInferred"> => e.type === "LabelFunctionInferred" && e.data.taskId === taskId)
  const rejected = before.filter((e): e is Of<"LabelFunctionRejected"> => e.type === "LabelFunctionRejected" && e.data.taskId === taskId)

  const demos = sources
    .filter((s) => s.kind === "demo")
    .map((s) => {
      const d = state.demos.get(s.id)
      return { demo_id: s.id, task: d?.taskId ?? null, file: d?.source.ref ?? null, steps: d?.steps.length ?? null }
    })
  const keySteps = sources.flatMap((source) => {
    const lfAt = (i: number) => inferred.findLast((e) => sameSource(e.data.source, source) && e.data.keyStepIndex === i)?.data.lfId ?? null
    const rejectedAt = (i: number) =>
      rejected.findLast((e) => sameSource(e.data.source, source) && e.data.keyStepIndex === i)?.data.reason ?? null
    const identified = before.findLast(
      (e): e is Of<"KeyStepsIdentified"> => e.type === "KeyStepsIdentified" && sameSource(e.data.source, source)
    )
    const ks =
      identified !== undefined
        ? identified.data.keySteps.map((k) => ({ stepIndex: k.stepIndex, description: k.description, reason: k.reason as string | null }))
        : // Expansion logs its key steps only through the LFs it inferred or rejected for them.
          [...inferred, ...rejected]
            .filter((e) => sameSource(e.data.source, source))
            .map((e) => ({ stepIndex: e.data.keyStepIndex, description: e.data.description, reason: null }))
            .filter((k, i, all) => all.findIndex((x) => x.stepIndex === k.stepIndex) === i)
            .sort((a, b) => a.stepIndex - b.stepIndex)
    return ks.map((k) => ({
      source,
      step_index: k.stepIndex,
      description: k.description,
      reason: k.reason,
      lf_id: lfAt(k.stepIndex),
      rejected: rejectedAt(k.stepIndex)
    }))
  })

  const evidence = new Map((verified?.evidence ?? []).map((ev) => [ev.lfId, ev]))
  const labelFunctions = graph.nodes.map((node) => {
    const event =
      inferred.findLast((e) => e.data.lfId === node.lfId && sameSource(e.data.source, node.source)) ??
      before.findLast((e): e is Of<"LabelFunctionInferred"> => e.type === "LabelFunctionInferred" && e.data.lfId === node.lfId)
    const ev = evidence.get(node.lfId)
    return {
      lf_id: node.lfId,
      node_id: node.nodeId,
      description: node.description,
      how: node.how,
      source: event?.data.source ?? node.source,
      key_step_index: event?.data.keyStepIndex ?? null,
      code: event?.data.code ?? state.lfs.get(node.lfId)?.code ?? null,
      inference: event?.data.inference ?? null,
      validation: event?.data.validation ?? null,
      verdict: ev === undefined ? null : { satisfied_at: ev.satisfiedAt, error: ev.error, step: stepOf(recorded, ev.satisfiedAt) }
    }
  })

  const at = new Map([...evidence.values()].map((ev) => [ev.lfId, ev.error === null ? ev.satisfiedAt : -1]))
  const pathIds = verified?.verdict === "pass" && verified.path !== null ? verified.path : null
  const matchedPath =
    pathIds === null
      ? undefined
      : graph.paths.find((p) => p.nodeIds.length === pathIds.length && p.nodeIds.every((x, i) => x === pathIds[i]))
  const steps =
    pathIds === null
      ? []
      : walkEvidence(graph, pathIds, at).map((w) => ({
          node_id: w.nodeId,
          lf_id: w.node?.lfId ?? "",
          description: w.node?.description ?? "(not in the graph)",
          step: w.step,
          evidence: w.step === null ? null : stepOf(recorded, w.step)
        }))

  return {
    task: taskId,
    instruction: state.instructions.get(taskId) ?? null,
    trajectory: {
      id: trajectoryId,
      run_id: runId,
      round: recorded.round,
      sample: recorded.sample,
      policy: recorded.policy,
      outcome: recorded.outcome,
      attempts: recorded.attempts,
      infra_error: recorded.infraError,
      steps: recorded.steps.map((_, i) => stepOf(recorded, i)!)
    },
    graph: {
      round: state.round,
      nodes: graph.nodes.length,
      paths: graph.paths.map((p) => ({ path_id: p.pathId, node_ids: [...p.nodeIds], source: p.source }))
    },
    demos,
    expanded_from: sources.filter((s) => s.kind === "trajectory").map((s) => s.id),
    key_steps: keySteps,
    label_functions: labelFunctions,
    path: {
      matched: pathIds !== null,
      path_id: matchedPath?.pathId ?? null,
      node_ids: pathIds === null ? null : [...pathIds],
      steps,
      candidates: graph.paths.map((p) => ({
        path_id: p.pathId,
        node_ids: [...p.nodeIds],
        held_in_order: heldInOrder(walkEvidence(graph, p.nodeIds, at))
      }))
    },
    label: verified?.verdict ?? null,
    dataset_records: events.flatMap((e) =>
      e.type === "DatasetRecordEmitted" && e.data.trajectoryIds.includes(trajectoryId)
        ? [
            {
              record_id: e.data.recordId,
              format: e.data.format,
              round: e.data.round,
              task_id: e.data.taskId,
              as: e.data.format === "dpo" ? (e.data.trajectoryIds[0] === trajectoryId ? "chosen" : "rejected") : null
            }
          ]
        : []
    ),
    extrapolated: events.flatMap((e) =>
      e.type === "TaskExtrapolated" && e.data.lineage.parentTrajectoryIds.includes(trajectoryId)
        ? [
            {
              task_id: e.data.newTaskId,
              instruction: e.data.instruction,
              generator: e.data.generator,
              pseudo_demo_steps: e.data.pseudoDemoSteps
            }
          ]
        : []
    )
  }
}

// ---------------------------------------------------------------------------------------
// Human output

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`

const render = (a: TrajectoryAudit): ReadonlyArray<string> => {
  const t = a.trajectory
  const held = new Map<number, Array<string>>()
  for (const lf of a.label_functions) {
    if (lf.verdict !== null && lf.verdict.satisfied_at >= 0)
      held.set(lf.verdict.satisfied_at, [...(held.get(lf.verdict.satisfied_at) ?? []), lf.lf_id.slice(0, 12)])
  }
  const lines: Array<string> = [
    `trajectory ${t.id} — run ${t.run_id}, round ${t.round}, sample ${t.sample}, policy ${t.policy}`,
    `outcome      ${t.outcome}, ${plural(t.steps.length, "step")}${t.attempts > 1 ? `, ${t.attempts} attempts` : ""}${t.infra_error === null ? "" : ` (infra error: ${t.infra_error})`}`,
    `task         ${a.task}${a.instruction === null ? "" : ` — ${a.instruction}`}`,
    `graph        the task's graph as round ${a.graph.round} started (the one the verdict used): ${plural(a.graph.nodes, "node")}, ${plural(a.graph.paths.length, "path")}`,
    "",
    "steps"
  ]
  for (const s of t.steps) {
    const lfs = held.get(s.index)
    lines.push(`  ${String(s.index).padStart(2)}  ${stepLine(s)}${lfs === undefined ? "" : `   ← LF ${lfs.join(", ")} held here`}`)
  }
  lines.push("", "source demos")
  if (a.demos.length === 0) lines.push("  none (the graph was empty: no label function judged this trajectory)")
  for (const d of a.demos)
    lines.push(`  ${d.demo_id}${d.steps === null ? "" : `: ${plural(d.steps, "step")}`}${d.file === null ? "" : ` (${d.file})`}`)
  if (a.expanded_from.length > 0) lines.push(`  expanded from the run's trajectories: ${a.expanded_from.join(", ")}`)
  lines.push("", "key steps")
  for (const k of a.key_steps) {
    const outcome = k.lf_id !== null ? `LF ${k.lf_id.slice(0, 12)}` : k.rejected !== null ? `no LF: ${k.rejected}` : "no LF"
    lines.push(
      `  ${k.source.kind} ${k.source.id} step ${k.step_index}: ${k.description}${k.reason === null ? "" : ` (${k.reason})`} → ${outcome}`
    )
  }
  lines.push("", `label functions (${a.label_functions.length})`)
  for (const lf of a.label_functions) {
    lines.push(`  ${lf.lf_id.slice(0, 12)}  node ${lf.node_id} [${lf.how}] ${lf.description}`)
    lines.push(`    from       ${lf.source.kind} ${lf.source.id}${lf.key_step_index === null ? "" : `, key step ${lf.key_step_index}`}`)
    if (lf.inference !== null) {
      const i = lf.inference
      lines.push(
        `    inferred   ${i.method}, evidence ${i.evidence}, ${plural(i.attempts, "attempt")}${i.modelCallIds.length === 0 ? "" : `, model calls ${i.modelCallIds.map((c) => c.slice(0, 12)).join(", ")}`}`
      )
    }
    if (lf.validation !== null) {
      const v = lf.validation
      lines.push(
        `    validation held on its source at step ${v.onDemoAtKeyStep}; on the prefix: ${v.onPrefix ? "held" : "did not hold"}; known failures: ${v.onFailures.length === 0 ? "none known" : v.onFailures.map((f) => `${f.trajectoryId} ${f.result < 0 ? "did not hold" : `held at ${f.result}`}`).join(", ")}`
      )
    }
    const v = lf.verdict
    lines.push(
      `    verdict    ${
        v === null
          ? "not evaluated"
          : v.error !== null
            ? `error: ${v.error}`
            : v.satisfied_at < 0
              ? "did not hold"
              : `held at step ${v.satisfied_at}${v.step === null ? "" : `: ${stepLine(v.step)}`}`
      }`
    )
    if (lf.code !== null) for (const l of lf.code.trimEnd().split("\n")) lines.push(`    | ${l}`)
  }
  lines.push("", "path")
  const p = a.path
  if (p.matched) {
    lines.push(
      `  matched ${p.path_id ?? "(a path no longer in the graph)"}: the verdict's path is start → ${p.node_ids!.join(" → ")} → end`
    )
    for (const s of p.steps) {
      lines.push(
        `    ${s.node_id} ${quote(s.description)} ${s.step === null ? "held after the previous node (the step is not in the evidence)" : `held at step ${s.step}${s.evidence === null ? "" : `: ${s.evidence.summary}`}`}`
      )
    }
  } else {
    lines.push(`  none matched${p.candidates.length === 0 ? " (the graph had no path)" : ""}`)
    for (const c of p.candidates)
      lines.push(`    ${c.path_id}: ${c.held_in_order} of ${plural(c.node_ids.length, "node")} held in order from the start`)
  }
  lines.push("", `label        ${a.label ?? "not verified yet"}`, "", "dataset records")
  if (a.dataset_records.length === 0) lines.push("  none (records are emitted when the round's dataset is sealed)")
  for (const r of a.dataset_records)
    lines.push(`  ${r.record_id.slice(0, 12)} ${r.format}${r.as === null ? "" : ` (${r.as})`}, round ${r.round}, task ${r.task_id}`)
  for (const x of a.extrapolated)
    lines.push(
      `  extrapolated: ${x.task_id} ${quote(x.instruction)} (${x.generator}, its first ${plural(x.pseudo_demo_steps, "step")} as the demo)`
    )
  return lines
}

// ---------------------------------------------------------------------------------------
// The command

export const auditTrajectory: Command = {
  name: "audit trajectory",
  summary: "why a trajectory got its label: task, demos, key steps, LFs and their verdicts with step evidence, path, label",
  positionals: ["id"],
  flags: {
    run: { kind: "string", description: "the run the trajectory belongs to (default: the latest run with that trajectory id)" },
    json: { kind: "boolean", description: "print one JSON object" },
    ...commonConfigFlags
  },
  run: (args) =>
    Effect.gen(function* () {
      if (args.positionals.length !== 1) {
        return yield* new UsageError({ message: "audit trajectory takes one trajectory id, e.g. r1-s0-<task> or <runId>/r1-s0-<task>" })
      }
      const raw = args.positionals[0]!
      const slash = raw.indexOf("/")
      const fromId = slash === -1 ? undefined : raw.slice(0, slash)
      const trajectoryId = slash === -1 ? raw : raw.slice(slash + 1)
      if (!isToken(trajectoryId) || (fromId !== undefined && !isToken(fromId))) {
        return yield* new UsageError({ message: `${JSON.stringify(raw)} is not a trajectory id (r1-s0-<task>, or <runId>/r1-s0-<task>)` })
      }
      const flagRun = args.flags.run as string | undefined
      if (flagRun !== undefined && fromId !== undefined && flagRun !== fromId) {
        return yield* new UsageError({ message: `--run ${flagRun} and the id's run ${fromId} disagree` })
      }
      const wanted = flagRun ?? fromId
      if (wanted !== undefined && !isToken(wanted)) return yield* unknownRun(wanted)
      const opened = yield* openStore(args, { quiet: args.flags.json === true })
      const audit = yield* Effect.provide(
        Effect.gen(function* () {
          let runId: string
          if (wanted !== undefined) {
            if (!(yield* runExists(wanted))) return yield* unknownRun(wanted)
            const mine = yield* readEvents([`run.${wanted}.traj.${trajectoryId}`])
            if (mine.length === 0) return yield* new CliError({ message: `run ${wanted} has no trajectory ${trajectoryId}` })
            runId = wanted
          } else {
            const runs = yield* runsWith(`run.*.traj.${trajectoryId}`)
            if (runs.length === 0) {
              return yield* new CliError({
                message: `no trajectory ${trajectoryId} in the log (bun core run records them; ids look like r1-s0-<task>)`
              })
            }
            runId = runs.at(-1)!
          }
          const result = auditTrajectoryOf(yield* runLog(runId), runId, trajectoryId)
          if (typeof result === "string") return yield* new CliError({ message: result })
          return result
        }),
        opened.layer
      )
      if (args.flags.json === true) console.log(JSON.stringify(audit))
      else for (const l of render(audit)) console.log(l)
    })
}
