/**
 * The extrapolation decider (Trajectory-Guided Extrapolation: the run's own trajectories
 * become tasks of the pool): when a round completes, each of its verified trajectories of
 * the run's own tasks (in id order) may reveal a task it actually did.
 *
 * - **failure-relabel**: a partial or failed trajectory is laid over its own task's demo,
 *   then the same site's other tasks' (libs/domain Extrapolation: the template with the
 *   values the run used); when no template explains it and the run has a model, the model
 *   is asked what the actions did (libs/models Relabel, the reference's rejection rules) —
 *   the only generator that can name a task of a template the run has no demo of;
 * - **success-augmentation**: a passing trajectory or an explorer episode is laid over the
 *   same site's other tasks' demos — sub-goals it reached on the way with other values.
 *
 * The model is asked at most `RELABEL_CALLS_PER_TASK` times per parent task and round, and
 * never twice about the same prompt in a round (greedy: the answer would be the same).
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
  contaminationOf,
  describeStep,
  extrapolate,
  extrapolatedTaskId,
  LF_API_VERSION,
  nodeIdOf,
  pathIdOf,
  pathSignature,
  relabelSteps,
  screenSummary,
  semanticKeyOf
} from "@core/domain"
import type { DataRuleSet, GraphNode, HeldOutTask, IntentRule, TemplateTask } from "@core/domain"
import { modelRelabel } from "@core/models"
import {
  LabelFunctionInferred,
  LabelFunctionRejected,
  labelFunctionId,
  NodeExpanded,
  PathAdded,
  RoundExtrapolated,
  runStream,
  sha256,
  TaskExtrapolated,
  TaskExtrapolationRejected
} from "@core/events"
import type { CoreEvent } from "@core/events"
import { collapse } from "@core/domain"
import { defineDecider, emitter } from "@core/engine"
import type { Emitter } from "@core/engine"
import { inferLabelFunctions } from "../LabelInference.ts"
import { isExplorerId } from "../Rollout.ts"
import { evolveRun, initialRunState, sourceKey } from "../RunState.ts"
import type { RunConfig } from "../RunConfig.ts"
import type { RunState, TrajectoryData } from "../RunState.ts"
import { loadRecordedTrajectory } from "../Trajectories.ts"
import { extrapolationSteps, planPseudoDemo, pseudoDemoTrajectory } from "../PseudoDemos.ts"

export const GENERATOR_VERSION = "embedded-template-v1"
export const MODEL_GENERATOR_VERSION = "model-relabel-v1"
/** A parent's failures tend to be alike: a second ask finds what a third would. */
export const RELABEL_CALLS_PER_TASK = 2

/** A task a generator proposes: its instruction, template (none for a model's intent) and pseudo-demo length. */
interface Proposal {
  readonly instruction: string
  readonly template: { readonly id: string; readonly parameters: Readonly<Record<string, string | number>> } | null
  readonly steps: number
  /** The steps that played the template's key steps; null for a model's intent (its key steps are identified on the steps). */
  readonly matched: ReadonlyArray<number> | null
}

/** Who proposed it: recorded in TaskExtrapolated's lineage. */
interface Provenance {
  readonly generator: Generator
  readonly generatorVersion: string
  readonly promptDigest: string | null
  readonly modelCallIds: ReadonlyArray<string>
}

const norm = (s: string): string => collapse(s).toLowerCase()

/** A run task with its template and its demo's key steps, as the matcher reads it; null without a demo. */
const templateTask = (s: RunState, taskId: string): TemplateTask | null => {
  const info = s.tasks.get(taskId)
  const demoPath = s.graphs.get(taskId)?.paths.find((p) => p.source.kind === "demo")
  const demo = demoPath === undefined ? undefined : s.demos.get(demoPath.source.id)
  if (info === undefined || demo === undefined) return null
  const keySteps = (s.inferredFrom.get(sourceKey({ kind: "demo", id: demo.demoId })) ?? [])
    .map((lf) => lf.keyStepIndex)
    .sort((a, b) => a - b)
  return {
    taskId,
    instruction: info.instruction,
    template: info.template,
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
  // Version 2 decides by the run's data rules (pruned pseudo-demos, sub-goals labelled as augmentation); older runs as version 1.
  version: "2",
  handles: ["RoundCompleted"],
  emits: [
    "TaskExtrapolated",
    "TaskExtrapolationRejected",
    "LabelFunctionInferred",
    "LabelFunctionRejected",
    "NodeExpanded",
    "PathAdded",
    "RoundExtrapolated"
  ],
  initial: initialRunState,
  evolve: evolveRun,
  decide: (s: RunState, e: CoreEvent) =>
    Effect.gen(function* () {
      const config = s.config
      if (e.type !== "RoundCompleted" || config === null || e.runId === null) return []
      const runId = e.runId
      const round = e.data.round
      const out = emitter(e)
      const known = new Map(knownInstructions(s))
      const heldOut = heldOutTasks(s)
      const refused = new Set(s.refused)
      const added: Array<string> = []
      const perParent = new Map<string, number>()
      let refusals = 0
      const relabelCalls = new Map<string, number>()
      const asked = new Set<string>()
      let callIndex = 0
      const refuse = (
        instruction: string,
        generator: Generator,
        parent: TrajectoryData,
        rule: "template-parameters" | "wording" | "duplicate" | IntentRule,
        closestTaskId: string | null,
        similarity: number,
        modelCallIds: ReadonlyArray<string> = []
      ) => {
        if (refused.has(instruction)) return
        refused.add(instruction)
        refusals++
        out.emitOn(TaskExtrapolationRejected, runStream(runId, "task", `refused-${sha256(instruction).slice(0, 12)}`), {
          instruction,
          generator,
          parentTaskId: parent.taskId,
          parentTrajectoryIds: [parent.trajectoryId],
          rule,
          closestTaskId,
          similarity,
          ...(modelCallIds.length === 0 ? {} : { modelCallIds: [...modelCallIds] })
        })
      }
      /** Refused (and logged), or kept: its pseudo-demo's LFs, nodes and path decided. True when kept. */
      const consider = (x: Proposal, provenance: Provenance, data: TrajectoryData) =>
        Effect.gen(function* () {
          const same = known.get(norm(x.instruction))
          if (same !== undefined) {
            // Finding a task again says nothing new; finding one of the run's own tasks is worth a line.
            if (config.tasks.includes(same))
              refuse(x.instruction, provenance.generator, data, "duplicate", same, 1, provenance.modelCallIds)
            return false
          }
          const contaminated = contaminationOf(
            { instruction: x.instruction, templateId: x.template?.id ?? null, parameters: x.template?.parameters ?? null },
            heldOut
          )
          if (contaminated !== null) {
            refuse(
              x.instruction,
              provenance.generator,
              data,
              contaminated.rule,
              contaminated.heldOutId,
              contaminated.similarity,
              provenance.modelCallIds
            )
            return false
          }
          const kept = yield* pseudoDemo(e, data, x, provenance, out, config, s.rules.data)
          if (!kept.kept) return false
          added.push(kept.taskId)
          known.set(norm(x.instruction), kept.taskId)
          perParent.set(data.taskId, (perParent.get(data.taskId) ?? 0) + 1)
          return true
        })
      // Decided once per round, over its trajectories in id order, so the caps are exact and the order replayable.
      const ids =
        config.extrapolatePerTask === 0 ? [] : [...s.trajectories.keys()].filter((id) => s.trajectories.get(id)!.round === round).sort()
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
        // A sub-goal reached on the way is an augmentation of what the run did, whatever its verdict.
        const labelOf = (x: Proposal): Generator =>
          s.rules.data.subGoalsAugment && x.steps < data.steps.length ? "success-augmentation" : generator
        // A failure is first asked what its own template did; a pass looks for other templates' sub-goals.
        const siblings = config.tasks.filter((t) => t !== taskId && s.tasks.get(t)?.site === site).sort()
        const candidates = verdict === "pass" && !explorer ? siblings : [taskId, ...siblings]
        const steps = extrapolationSteps(data)
        const embedded: Provenance = { generator, generatorVersion: GENERATOR_VERSION, promptDigest: null, modelCallIds: [] }
        let kept = false
        for (const candidate of candidates) {
          const template = templateTask(s, candidate)
          const x = template === null ? null : extrapolate(steps, template)
          if (x === null) continue
          kept = yield* consider(x, { ...embedded, generator: labelOf(x) }, data)
          if (kept) break
        }
        if (kept || generator !== "failure-relabel" || config.model === null || (relabelCalls.get(taskId) ?? 0) >= RELABEL_CALLS_PER_TASK)
          continue
        const keep = relabelSteps(data.steps.map((st) => st.action))
        if (keep === 0) continue
        const t = yield* loadRecordedTrajectory(data, config.hashRouting)
        const request = {
          runId,
          causationId: e.id,
          callIndex,
          model: config.model,
          site: site ?? "unknown",
          instruction: s.instructions.get(taskId) ?? s.tasks.get(taskId)?.instruction ?? "",
          steps: t.steps.slice(0, keep).map((st) => ({ text: describeStep(st.action), urlBefore: st.urlBefore, urlAfter: st.urlAfter })),
          screen: screenSummary(t.steps[keep - 1]?.elements ?? null)
        }
        const key = sha256(JSON.stringify({ ...request, callIndex: 0 }))
        if (asked.has(key)) continue
        asked.add(key)
        relabelCalls.set(taskId, (relabelCalls.get(taskId) ?? 0) + 1)
        const relabel = yield* modelRelabel(request)
        callIndex++
        const provenance: Provenance = {
          generator,
          generatorVersion: MODEL_GENERATOR_VERSION,
          promptDigest: relabel.promptDigest,
          modelCallIds: [relabel.modelCallId]
        }
        if (relabel.relabelled.kind === "rejected") {
          // The answer itself is the record's instruction; a long one is cut, the ModelCalled event has it whole.
          const text = relabel.relabelled.text.length > 300 ? `${relabel.relabelled.text.slice(0, 300)}…` : relabel.relabelled.text
          refuse(text, generator, data, relabel.relabelled.rule, null, 0, provenance.modelCallIds)
          continue
        }
        yield* consider({ instruction: relabel.relabelled.intent, template: null, steps: keep, matched: null }, provenance, data)
      }
      out.emitOn(RoundExtrapolated, runStream(runId, "round", String(round)), { round, newTaskIds: added, refused: refusals })
      return out.made
    })
})

/** Semantic Code Abstraction on the pseudo-demo, then the new task, its LFs, nodes and path. */
/** `out`: the decision's emitter, shared by every task of the decision — event ids are (causation, type, ordinal). */
const pseudoDemo = (
  e: CoreEvent,
  data: TrajectoryData,
  x: Proposal,
  provenance: Provenance,
  out: Emitter,
  config: RunConfig,
  rules: DataRuleSet
) =>
  Effect.gen(function* () {
    const runId = e.runId!
    const newTaskId = extrapolatedTaskId(data.taskId, sha256(x.instruction))
    const plan = !rules.prunesPseudoDemos ? null : yield* planPseudoDemo(data, x, config.hashRouting)
    // Nothing left once loops are dropped (a run that only walked around): no demo, so no task.
    if (plan !== null && plan.stepIndices.length === 0) return { taskId: newTaskId, kept: false }
    const t = yield* loadRecordedTrajectory(
      plan === null ? { ...data, steps: data.steps.slice(0, x.steps) } : pseudoDemoTrajectory(data, plan),
      config.hashRouting
    )
    const inferred = yield* inferLabelFunctions({
      runId,
      causationId: e.id,
      instruction: x.instruction,
      demo: t,
      demoKey:
        plan === null
          ? `trajectory:${runId}:${data.trajectoryId}:${x.steps}`
          : `trajectory:${runId}:${data.trajectoryId}:${plan.stepIndices.join(",")}${plan.addsClosing ? "+complete" : ""}`,
      failures: [],
      model: null,
      synthesis: config.synthesis
    })
    const accepted = inferred.labelFunctions.filter((lf) => lf.kind === "inferred")
    // A pseudo-demo no label function holds on cannot label anything: no task.
    if (accepted.length === 0) return { taskId: newTaskId, kept: false }
    const emit = out.emitOn
    emit(TaskExtrapolated, runStream(runId, "task", newTaskId), {
      newTaskId,
      instruction: x.instruction,
      generator: provenance.generator,
      lineage: {
        parentTrajectoryIds: [data.trajectoryId],
        parentTaskId: data.taskId,
        generatorVersion: provenance.generatorVersion,
        promptDigest: provenance.promptDigest,
        ...(provenance.modelCallIds.length === 0 ? {} : { modelCallIds: [...provenance.modelCallIds] })
      },
      pseudoDemoTrajectoryId: data.trajectoryId,
      pseudoDemoSteps: plan === null ? x.steps : plan.stepIndices.length,
      ...(plan === null ? {} : { pseudoDemoStepIndices: [...plan.stepIndices], pseudoDemoAddsClosing: plan.addsClosing }),
      template: x.template
    })
    const graphStream = runStream(runId, "graph", newTaskId)
    const source = { kind: "trajectory" as const, id: data.trajectoryId }
    const nodeIds: Array<string> = []
    const nodes: Array<GraphNode> = []
    for (const lf of inferred.labelFunctions) {
      const base = { taskId: newTaskId, source, keyStepIndex: lf.keyStep.stepIndex, description: lf.keyStep.description }
      if (lf.kind === "rejected") {
        emit(LabelFunctionRejected, graphStream, {
          ...base,
          candidateCode: lf.candidateCode,
          reason: lf.reason,
          attempts: lf.attempts,
          modelCallIds: [...lf.modelCallIds]
        })
        continue
      }
      const lfId = labelFunctionId(lf.code)
      emit(LabelFunctionInferred, graphStream, {
        ...base,
        lfId,
        code: lf.code,
        apiVersion: LF_API_VERSION,
        inference: { method: lf.method, evidence: lf.evidence, attempts: lf.attempts, modelCallIds: [...lf.modelCallIds] },
        validation: { ...lf.validation, onFailures: [...lf.validation.onFailures] }
      })
      const semanticKey = semanticKeyOf(t, lf.keyStep.stepIndex)
      const nodeId = nodeIdOf(semanticKey)
      if (nodeIds.includes(nodeId)) continue
      nodeIds.push(nodeId)
      const node = { taskId: newTaskId, nodeId, lfId, description: lf.keyStep.description, semanticKey, source, how: "demo" as const }
      nodes.push(node)
      emit(NodeExpanded, graphStream, node)
    }
    const signature = plan === null ? {} : { signature: pathSignature({ taskId: newTaskId, nodes, paths: [] }, nodeIds) }
    emit(PathAdded, graphStream, { taskId: newTaskId, pathId: pathIdOf(newTaskId, nodeIds), nodeIds, source, ...signature })
    return { taskId: newTaskId, kept: true }
  })
