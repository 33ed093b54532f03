/**
 * The extrapolation decider (Trajectory-Guided Extrapolation, METHOD-NOTES; issue 7): when a
 * round completes, each of its verified trajectories of the run's own tasks (in id order)
 * may reveal a task it actually did.
 *
 * - **failure-relabel**: a partial or failed trajectory is laid over its own task's demo,
 *   then the same site's other tasks' (libs/domain Extrapolation: the template with the
 *   values the run used);
 * - **success-augmentation**: a passing trajectory or an explorer episode is laid over the
 *   same site's other tasks' demos — sub-goals it reached on the way with other values.
 *
 * A found task that is near a held-out task (the contamination guard) or repeats one the
 * run already has is refused, and the refusal logged once. A kept task goes through
 * Semantic Code Abstraction with the trajectory (up to its last matched step) as its
 * pseudo-demo: its label functions are inferred and validated there, its graph gets their
 * nodes and path, and TaskExtrapolated records its lineage. It joins the rollout pool from
 * the next round on (`run.extrapolatedSamples` rollouts per round). At most
 * `run.extrapolatePerTask` new tasks per parent task and round.
 *
 * The round's RoundExtrapolated closes it; the dataset is built on that (Datasets).
 *
 * Streams: `run.<runId>.task.<newTaskId>` (TaskExtrapolated; a refusal under
 * `refused-<digest>`), `run.<runId>.graph.<newTaskId>`, and the round's stream.
 *
 * @example
 * const decisions = yield* extrapolation.decide(state, roundCompleted) // …, RoundExtrapolated
 */
import { Effect } from "effect"
import {
  contaminationOf, extrapolate, extrapolatedTaskId, LF_API_VERSION, nodeIdOf, pathIdOf, semanticKeyOf
} from "@core/domain"
import type { ExtrapolatedTask, ExtrapolationStep, HeldOutTask, TemplateTask } from "@core/domain"
import {
  LabelFunctionInferred, LabelFunctionRejected, labelFunctionId, NodeExpanded, PathAdded, RoundExtrapolated, runStream, sha256, TaskExtrapolated,
  TaskExtrapolationRejected
} from "@core/events"
import type { CoreEvent, DataOf, EventDefinition } from "@core/events"
import { collapse } from "@core/domain"
import { decision, defineDecider } from "@core/replay"
import type { Decision } from "@core/replay"
import { inferLabelFunctions } from "../LabelInference.ts"
import { isExplorerId } from "../Rollout.ts"
import { evolveRun, initialRunState, sourceKey } from "../RunState.ts"
import type { RunState, TrajectoryData } from "../RunState.ts"
import { loadRecordedTrajectory } from "../Trajectories.ts"

export const GENERATOR_VERSION = "embedded-template-v1"

const norm = (s: string): string => collapse(s).toLowerCase()

/** A recorded trajectory's steps with the page each was taken on. */
export const extrapolationSteps = (t: TrajectoryData): ReadonlyArray<ExtrapolationStep> =>
  t.steps.map((st, k) => ({ action: st.action, urlBefore: k === 0 ? t.initial.url : t.steps[k - 1]!.observation.url, urlAfter: st.observation.url }))

/** A run task with its template and its demo's key steps, as the matcher reads it; null without a demo. */
const templateTask = (s: RunState, taskId: string): TemplateTask | null => {
  const info = s.tasks.get(taskId)
  const demoPath = s.graphs.get(taskId)?.paths.find((p) => p.source.kind === "demo")
  const demo = demoPath === undefined ? undefined : s.demos.get(demoPath.source.id)
  if (info === undefined || demo === undefined) return null
  const keySteps = (s.inferredFrom.get(sourceKey({ kind: "demo", id: demo.demoId })) ?? []).map((lf) => lf.keyStepIndex).sort((a, b) => a - b)
  return {
    taskId, instruction: info.instruction, template: info.template,
    demo: { steps: demo.steps.map((st) => ({ action: st.action, urlBefore: st.urlBefore, urlAfter: st.urlAfter })), keySteps }
  }
}

const heldOutTasks = (s: RunState): ReadonlyArray<HeldOutTask> =>
  s.config!.heldOut.flatMap((id) => {
    const t = s.tasks.get(id)
    if (t === undefined) return []
    const parameters: Record<string, string | number> = {}
    for (const [k, v] of Object.entries(t.template?.parameters ?? {})) if (typeof v === "string" || typeof v === "number") parameters[k] = v
    return [{ id, instruction: t.instruction, templateId: t.template?.id ?? null, parameters }]
  })

/** Tasks of the run a refusal may name as a duplicate: its own and those already extrapolated. */
const knownInstructions = (s: RunState): ReadonlyMap<string, string> => {
  const out = new Map<string, string>()
  for (const id of s.config!.tasks) {
    const i = s.instructions.get(id)
    if (i !== undefined) out.set(norm(i), id)
  }
  for (const x of s.extrapolated.values()) out.set(norm(x.instruction), x.taskId)
  return out
}

type Generator = "success-augmentation" | "failure-relabel"

export const extrapolation = defineDecider({
  name: "extrapolation",
  version: "1",
  handles: ["RoundCompleted"],
  emits: ["TaskExtrapolated", "TaskExtrapolationRejected", "LabelFunctionInferred", "LabelFunctionRejected", "NodeExpanded", "PathAdded", "RoundExtrapolated"],
  initial: initialRunState,
  evolve: evolveRun,
  decide: (s: RunState, e: CoreEvent) =>
    Effect.gen(function*() {
      const config = s.config
      if (e.type !== "RoundCompleted" || config === null || e.runId === null) return []
      const runId = e.runId
      const round = e.data.round
      const made: Array<Decision> = []
      const known = new Map(knownInstructions(s))
      const heldOut = heldOutTasks(s)
      const refused = new Set(s.refused)
      const added: Array<string> = []
      const perParent = new Map<string, number>()
      const ordinals = new Map<string, number>()
      let refusals = 0
      const refuse = (x: ExtrapolatedTask, generator: Generator, parent: TrajectoryData, rule: "template-parameters" | "wording" | "duplicate", closestTaskId: string, similarity: number) => {
        if (refused.has(x.instruction)) return
        refused.add(x.instruction)
        made.push(decision(TaskExtrapolationRejected, {
          stream: runStream(runId, "task", `refused-${sha256(x.instruction).slice(0, 12)}`),
          causationId: e.id,
          ordinal: refusals++,
          data: { instruction: x.instruction, generator, parentTaskId: parent.taskId, parentTrajectoryIds: [parent.trajectoryId], rule, closestTaskId, similarity }
        }))
      }
      // Decided once per round, over its trajectories in id order, so the caps are exact and the order replayable.
      const ids = config.extrapolatePerTask === 0 ? [] : [...s.trajectories.keys()].filter((id) => s.trajectories.get(id)!.round === round).sort()
      for (const trajectoryId of ids) {
        const data = s.trajectories.get(trajectoryId)!
        const verdict = s.verdicts.get(trajectoryId)?.verdict
        const { taskId } = data
        // Only the run's own tasks are parents: a generated task's runs do not generate again.
        if (verdict === undefined || verdict === "infra-error" || data.steps.length === 0 || !config.tasks.includes(taskId)) continue
        if ((perParent.get(taskId) ?? 0) >= config.extrapolatePerTask) continue
        const site = s.tasks.get(taskId)?.site
        const explorer = isExplorerId(trajectoryId)
        const generator: Generator = verdict === "pass" || explorer ? "success-augmentation" : "failure-relabel"
        // A failure is first asked what its own template did; a pass looks for other templates' sub-goals.
        const siblings = config.tasks.filter((t) => t !== taskId && s.tasks.get(t)?.site === site).sort()
        const candidates = verdict === "pass" && !explorer ? siblings : [taskId, ...siblings]
        const steps = extrapolationSteps(data)
        for (const candidate of candidates) {
          const template = templateTask(s, candidate)
          const x = template === null ? null : extrapolate(steps, template)
          if (x === null) continue
          const same = known.get(norm(x.instruction))
          if (same !== undefined) {
            // Finding a task again says nothing new; finding one of the run's own tasks is worth a line.
            if (config.tasks.includes(same)) refuse(x, generator, data, "duplicate", same, 1)
            continue
          }
          const contaminated = contaminationOf({ instruction: x.instruction, templateId: x.template.id, parameters: x.template.parameters }, heldOut)
          if (contaminated !== null) {
            refuse(x, generator, data, contaminated.rule, contaminated.heldOutId, contaminated.similarity)
            continue
          }
          const kept = yield* pseudoDemo(e, data, x, generator, ordinals)
          if (kept.decisions.length === 0) continue
          made.push(...kept.decisions)
          added.push(kept.taskId)
          known.set(norm(x.instruction), kept.taskId)
          perParent.set(taskId, (perParent.get(taskId) ?? 0) + 1)
          break
        }
      }
      made.push(decision(RoundExtrapolated, {
        stream: runStream(runId, "round", String(round)), causationId: e.id, ordinal: 0, data: { round, newTaskIds: added, refused: refusals }
      }))
      return made
    })
})

/** Semantic Code Abstraction on the pseudo-demo, then the new task, its LFs, nodes and path. */
/** `ordinals`: per event type, shared by every task of the decision — event ids are (causation, type, ordinal). */
const pseudoDemo = (e: CoreEvent, data: TrajectoryData, x: ExtrapolatedTask, generator: Generator, ordinals: Map<string, number>) =>
  Effect.gen(function*() {
    const runId = e.runId!
    const newTaskId = extrapolatedTaskId(data.taskId, sha256(x.instruction))
    const t = yield* loadRecordedTrajectory({ ...data, steps: data.steps.slice(0, x.steps) })
    const inferred = yield* inferLabelFunctions({
      runId, causationId: e.id, instruction: x.instruction, demo: t, demoKey: `trajectory:${runId}:${data.trajectoryId}:${x.steps}`,
      failures: [], model: null
    })
    const accepted = inferred.labelFunctions.filter((lf) => lf.kind === "inferred")
    // A pseudo-demo no label function holds on cannot label anything: no task.
    if (accepted.length === 0) return { taskId: newTaskId, decisions: [] }
    const made: Array<Decision> = []
    const emit = <D extends EventDefinition>(definition: D, stream: string, d: DataOf<D>) => {
      const ordinal = ordinals.get(definition.type) ?? 0
      ordinals.set(definition.type, ordinal + 1)
      made.push(decision(definition, { stream, causationId: e.id, ordinal, data: d }))
    }
    emit(TaskExtrapolated, runStream(runId, "task", newTaskId), {
      newTaskId, instruction: x.instruction, generator,
      lineage: { parentTrajectoryIds: [data.trajectoryId], parentTaskId: data.taskId, generatorVersion: GENERATOR_VERSION, promptDigest: null },
      pseudoDemoTrajectoryId: data.trajectoryId, pseudoDemoSteps: x.steps, template: x.template
    })
    const graphStream = runStream(runId, "graph", newTaskId)
    const source = { kind: "trajectory" as const, id: data.trajectoryId }
    const nodeIds: Array<string> = []
    for (const lf of inferred.labelFunctions) {
      const base = { taskId: newTaskId, source, keyStepIndex: lf.keyStep.stepIndex, description: lf.keyStep.description }
      if (lf.kind === "rejected") {
        emit(LabelFunctionRejected, graphStream, { ...base, candidateCode: lf.candidateCode, reason: lf.reason, attempts: lf.attempts, modelCallIds: [...lf.modelCallIds] })
        continue
      }
      const lfId = labelFunctionId(lf.code)
      emit(LabelFunctionInferred, graphStream, {
        ...base, lfId, code: lf.code, apiVersion: LF_API_VERSION,
        inference: { method: lf.method, evidence: lf.evidence, attempts: lf.attempts, modelCallIds: [...lf.modelCallIds] },
        validation: { ...lf.validation, onFailures: [...lf.validation.onFailures] }
      })
      const semanticKey = semanticKeyOf(t, lf.keyStep.stepIndex)
      const nodeId = nodeIdOf(semanticKey)
      if (nodeIds.includes(nodeId)) continue
      nodeIds.push(nodeId)
      const node = { taskId: newTaskId, nodeId, lfId, description: lf.keyStep.description, semanticKey, source, how: "demo" as const }
      emit(NodeExpanded, graphStream, node)
    }
    emit(PathAdded, graphStream, { taskId: newTaskId, pathId: pathIdOf(newTaskId, nodeIds), nodeIds, source })
    return { taskId: newTaskId, decisions: made }
  })
