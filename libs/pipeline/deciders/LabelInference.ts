/**
 * The label-inference decider: an `infer` run's RunStarted queues one job per chosen demo;
 * each job becomes StepsDescribed, KeyStepsIdentified, one LabelFunctionInferred or
 * LabelFunctionRejected per key step, and JobCompleted — all in the job's stream
 * `run.<runId>.infer.<demoId>`. Demos and task instructions are workspace facts folded
 * into its state; blobs come from the BlobStore, LF verdicts from the sandbox, model
 * answers from Models — so `bun core replay` re-derives the same events from the log.
 *
 * The RunStarted's config names the demos (`infer.demos`: `"all"` or a list of ids), the
 * model, the LF guide and the synthesizer version, read with the run's config schema.
 *
 * @example
 * const [queued] = yield* labelInference.decide(state, runStarted) // JobQueued for each demo
 */
import { Effect } from "effect"
import { LF_API_VERSION } from "@core/domain"
import type { SynthesisVersion } from "@core/domain"
import {
  decodeJobParams,
  InferParams,
  JobCompleted,
  JobQueued,
  KeyStepsIdentified,
  LabelFunctionInferred,
  labelFunctionId,
  LabelFunctionRejected,
  runStream,
  StepsDescribed
} from "@core/events"
import type { CoreEvent, DataOf } from "@core/events"
import { decision, defineDecider, emitter } from "@core/engine"
import { inferLabelFunctions } from "../LabelInference.ts"
import { runConfigOf } from "../RunConfig.ts"
import { loadDemoTrajectory } from "../Trajectories.ts"

type DemoData = DataOf<typeof import("@core/events").DemoIngested>

export interface InferenceState {
  readonly instructions: ReadonlyMap<string, string>
  /** Demo id → its latest ingested version; by digest too, since a job names the version it was queued for. */
  readonly demos: ReadonlyMap<string, DemoData>
  readonly byDigest: ReadonlyMap<string, DemoData>
  /** The model this run's config named, or null for the embedded backends. */
  readonly model: string | null
  /** The LF API guide version the run shows a model (`infer.lfGuide`; runs without it saw version 1). */
  readonly guide: string
  /** The embedded synthesizer's version (`infer.synthesis`; runs without it used version 1). */
  readonly synthesis: SynthesisVersion
}

export const INFER_JOB_KIND = "infer"

const initial: InferenceState = { instructions: new Map(), demos: new Map(), byDigest: new Map(), model: null, guide: "1", synthesis: "1" }

/** The demos an infer run asked for, from its RunStarted config. */
export const chosenDemos = (config: Readonly<Record<string, unknown>>, state: InferenceState): ReadonlyArray<DemoData> => {
  const wanted = runConfigOf(config).demos
  const all = [...state.demos.values()].sort((a, b) => (a.demoId < b.demoId ? -1 : 1))
  return wanted === "all" ? all : all.filter((d) => wanted.includes(d.demoId))
}

const messageOf = (e: unknown): string =>
  (typeof e === "object" && e !== null && "message" in e ? String((e as { message: unknown }).message) : String(e)).split("\n")[0]!

export const labelInference = defineDecider({
  name: "label-inference",
  version: "1",
  handles: ["RunStarted", "JobQueued"],
  emits: ["JobQueued", "StepsDescribed", "KeyStepsIdentified", "LabelFunctionInferred", "LabelFunctionRejected", "JobCompleted"],
  // Another decider's job (a rollout) is none of its business: it decides nothing on it, so it never holds the others back.
  concurrent: (e) => e.type === "JobQueued" && e.data.kind !== INFER_JOB_KIND,
  initial,
  evolve: (state: InferenceState, e: CoreEvent): InferenceState => {
    switch (e.type) {
      case "TaskRegistered":
        return { ...state, instructions: new Map(state.instructions).set(e.data.taskId, e.data.instruction) }
      case "DemoIngested":
        return {
          ...state,
          demos: new Map(state.demos).set(e.data.demoId, e.data),
          byDigest: new Map(state.byDigest).set(e.data.contentDigest, e.data)
        }
      case "RunStarted": {
        const config = runConfigOf(e.data.config)
        return { ...state, model: config.model, guide: config.lfGuide, synthesis: config.synthesis }
      }
      default:
        return state
    }
  },
  decide: (state: InferenceState, e: CoreEvent) =>
    Effect.gen(function* () {
      // `run` infers first too: its RunStarted names the demos of its tasks.
      if (e.type === "RunStarted" && (e.data.command === "infer" || e.data.command === "run") && e.runId !== null) {
        return chosenDemos(e.data.config, state).map((demo, i) =>
          decision(JobQueued, {
            stream: runStream(e.runId!, "infer", demo.demoId),
            causationId: e.id,
            ordinal: i,
            data: {
              jobId: `infer-${demo.demoId}`,
              kind: INFER_JOB_KIND,
              round: 0,
              taskId: demo.taskId,
              params: { demoId: demo.demoId, contentDigest: demo.contentDigest } satisfies InferParams
            }
          })
        )
      }
      if (e.type !== "JobQueued" || e.data.kind !== INFER_JOB_KIND || e.runId === null) return []
      return yield* inferJob(state, e)
    })
})

type JobQueuedEvent = Extract<CoreEvent, { type: "JobQueued" }>

const inferJob = (state: InferenceState, e: JobQueuedEvent) =>
  Effect.gen(function* () {
    const runId = e.runId!
    const { made, emit } = emitter(e)
    const complete = (outcome: "done" | "failed", error: string | null, produced: ReadonlyArray<string>) =>
      emit(JobCompleted, { jobId: e.data.jobId, outcome, worker: "label-inference", attempts: 1, produced: [...produced], error })

    const params = decodeJobParams(InferParams, e.data.params)
    if (params === null) {
      complete("failed", `parameters ${JSON.stringify(e.data.params)} are not an infer job's (demoId, contentDigest)`, [])
      return made
    }
    const demo = state.byDigest.get(params.contentDigest)
    if (demo === undefined) {
      complete("failed", `demo ${params.demoId} (content ${params.contentDigest.slice(0, 12)}) is not in the workspace`, [])
      return made
    }
    const source = { kind: "demo" as const, id: demo.demoId }
    const loaded = yield* Effect.result(loadDemoTrajectory(demo))
    if (loaded._tag === "Failure") {
      complete("failed", `demo ${demo.demoId}: ${messageOf(loaded.failure)}`, [])
      return made
    }
    const inferred = yield* Effect.result(
      inferLabelFunctions({
        runId,
        causationId: e.id,
        instruction: state.instructions.get(demo.taskId) ?? "",
        demo: loaded.success,
        demoKey: `demo:${demo.contentDigest}`,
        failures: [],
        model: state.model,
        guide: state.guide,
        synthesis: state.synthesis
      })
    )
    if (inferred._tag === "Failure") {
      complete("failed", `demo ${demo.demoId}: ${messageOf(inferred.failure)}`, [])
      return made
    }
    const r = inferred.success
    const produced = [
      emit(StepsDescribed, { source, method: "template", descriptions: [...r.descriptions], modelCallIds: [] }),
      emit(KeyStepsIdentified, {
        source,
        taskId: demo.taskId,
        keySteps: r.keySteps.map((k) => ({
          stepIndex: k.stepIndex,
          description: k.description,
          reason: r.keyStepMethod === "model" ? "model" : k.reason
        })),
        method: r.keyStepMethod,
        modelCallIds: [...r.keyStepModelCallIds]
      })
    ]
    for (const lf of r.labelFunctions) {
      const base = { taskId: demo.taskId, source, keyStepIndex: lf.keyStep.stepIndex, description: lf.keyStep.description }
      produced.push(
        lf.kind === "inferred"
          ? emit(LabelFunctionInferred, {
              ...base,
              lfId: labelFunctionId(lf.code),
              code: lf.code,
              apiVersion: LF_API_VERSION,
              inference: { method: lf.method, evidence: lf.evidence, attempts: lf.attempts, modelCallIds: [...lf.modelCallIds] },
              validation: { ...lf.validation, onFailures: [...lf.validation.onFailures] }
            })
          : emit(LabelFunctionRejected, {
              ...base,
              candidateCode: lf.candidateCode,
              reason: lf.reason,
              attempts: lf.attempts,
              modelCallIds: [...lf.modelCallIds]
            })
      )
    }
    complete("done", null, produced)
    return made
  })
