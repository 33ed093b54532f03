/**
 * Semantic Code Abstraction for one demo (docs/method.md): describe the steps, identify the
 * key steps, and give each key step a validated label function — or a rejection that says
 * why not. One Effect function, used by the label-inference decider (events, replay) and
 * by `bun core eval labels` (accuracy), so what is measured is what runs.
 *
 * Without a model every step is embedded (deterministic). With one, the model picks key
 * steps and writes LFs (up to 5 attempts each, validated); a key step the model could not
 * get right falls back to the embedded synthesizer, and the record says so — as does a
 * key-step answer that names no step but the closing one.
 *
 * @example
 * const result = yield* inferLabelFunctions({ runId, causationId, instruction, demo, demoKey, failures: [], model: null })
 * result.labelFunctions.filter((l) => l.kind === "inferred").map((l) => l.code)
 */
import { Effect } from "effect"
import {
  describeSteps,
  identifyKeySteps,
  keyStepOptionsOf,
  partOfEdit,
  judgeCandidate,
  LF_API_DOCS,
  lfApiGuide,
  SYNTHESIS,
  synthesisRulesAt,
  synthesizeCandidates
} from "@core/domain"
import type { SynthesisVersion } from "@core/domain"
import type { IdentifiedKeyStep, Judgement, LfTrajectory, LfVerdict, StepDescription } from "@core/domain"
import { modelKeySteps, modelSynthesize } from "@core/models"
import type { Models } from "@core/engine"
import { Sandbox } from "@core/sandbox"

export interface KnownFailure {
  readonly trajectoryId: string
  /** The sandbox's cache key for it (its digest). */
  readonly key: string
  readonly trajectory: LfTrajectory
}

export interface InferenceInput {
  readonly runId: string
  /** The event being handled: model calls are numbered under it. */
  readonly causationId: string
  readonly instruction: string
  readonly demo: LfTrajectory
  /** The sandbox's cache key for the demo (its digest). */
  readonly demoKey: string
  readonly failures: ReadonlyArray<KnownFailure>
  /** The model's name, or null for the embedded backends. */
  readonly model: string | null
  /** The LF API guide's version a model is shown (the run's `infer.lfGuide`); default the current one. */
  readonly guide?: string
  /** The embedded synthesizer's version (the run's `infer.synthesis`); default the current one. */
  readonly synthesis?: SynthesisVersion
}

export interface Validation {
  readonly onDemoAtKeyStep: number
  readonly onPrefix: boolean
  readonly onFailures: ReadonlyArray<{ readonly trajectoryId: string; readonly result: number }>
}

export type LabelOutcome =
  | {
      readonly kind: "inferred"
      readonly keyStep: IdentifiedKeyStep
      readonly code: string
      readonly method: "embedded" | "model"
      readonly evidence: string
      readonly attempts: number
      readonly modelCallIds: ReadonlyArray<string>
      readonly validation: Validation
    }
  | {
      readonly kind: "rejected"
      readonly keyStep: IdentifiedKeyStep
      readonly candidateCode: string | null
      readonly reason: string
      readonly attempts: number
      readonly modelCallIds: ReadonlyArray<string>
    }

export interface InferenceResult {
  readonly descriptions: ReadonlyArray<StepDescription>
  readonly keySteps: ReadonlyArray<IdentifiedKeyStep>
  readonly keyStepMethod: "embedded" | "model"
  readonly keyStepModelCallIds: ReadonlyArray<string>
  readonly labelFunctions: ReadonlyArray<LabelOutcome>
}

/** Runs one candidate on its demo, on the demo's prefix before the key step, and on each known failure. */
export const validateCandidate = (input: Pick<InferenceInput, "demo" | "demoKey" | "failures">, stepIndex: number, code: string) =>
  Effect.gen(function* () {
    const sandbox = yield* Sandbox
    const verdicts: ReadonlyArray<LfVerdict> = yield* sandbox.evaluateBatch([
      { code, trajectory: { key: input.demoKey, value: input.demo } },
      { code, trajectory: { key: input.demoKey, value: input.demo }, prefix: stepIndex },
      ...input.failures.map((f) => ({ code, trajectory: { key: f.key, value: f.trajectory } }))
    ])
    return judgeCandidate({
      keyStepIndex: stepIndex,
      demo: verdicts[0]!,
      prefix: verdicts[1]!,
      failures: input.failures.map((f, i) => ({ trajectoryId: f.trajectoryId, verdict: verdicts[i + 2]! }))
    })
  })

const validationOf = (j: Extract<Judgement, { accepted: true }>): Validation => ({
  onDemoAtKeyStep: j.onDemoAtKeyStep,
  onPrefix: j.onPrefix,
  onFailures: j.onFailures
})

/** The embedded synthesizer's candidates, strongest first; the first that validates wins. */
const embedded = (
  input: InferenceInput,
  keyStep: IdentifiedKeyStep,
  before: { attempts: number; modelCallIds: ReadonlyArray<string>; reason: string | null; code: string | null }
) =>
  Effect.gen(function* () {
    const candidates = synthesizeCandidates(input.demo, keyStep, synthesisRulesAt(input.synthesis ?? SYNTHESIS.current))
    let reason = before.reason ?? "no candidate: the step's action leaves no evidence an LF can check"
    let code = before.code
    let attempts = before.attempts
    for (const c of candidates) {
      attempts++
      const judged = yield* validateCandidate(input, keyStep.stepIndex, c.code)
      if (judged.accepted) {
        return {
          kind: "inferred",
          keyStep,
          code: c.code,
          method: "embedded",
          evidence: c.evidence,
          attempts,
          modelCallIds: before.modelCallIds,
          validation: validationOf(judged)
        } satisfies LabelOutcome
      }
      reason = `${c.evidence}: ${judged.reason}`
      code = c.code
    }
    return { kind: "rejected", keyStep, candidateCode: code, reason, attempts, modelCallIds: before.modelCallIds } satisfies LabelOutcome
  })

/** The demo's steps around a key step, described, for the model's context. */
const contextOf = (demo: LfTrajectory, descriptions: ReadonlyArray<StepDescription>, stepIndex: number): string =>
  descriptions
    .filter((d) => Math.abs(d.stepIndex - stepIndex) <= 3)
    .map((d) => {
      const s = demo.steps.find((x) => x.index === d.stepIndex)
      const mark = d.stepIndex === stepIndex ? " ← the key step" : ""
      return `${d.stepIndex}. ${d.text} (URL ${s?.urlBefore ?? "?"} → ${s?.urlAfter ?? "?"})${mark}`
    })
    .join("\n")

export const inferLabelFunctions = (input: InferenceInput) =>
  Effect.gen(function* () {
    const descriptions = describeSteps(input.demo)
    const keyStepOptions = keyStepOptionsOf(synthesisRulesAt(input.synthesis ?? SYNTHESIS.current))
    const embeddedKeys = identifyKeySteps(input.demo, keyStepOptions)
    let keySteps: ReadonlyArray<IdentifiedKeyStep> = embeddedKeys
    let keyStepMethod: "embedded" | "model" = "embedded"
    let keyStepModelCallIds: ReadonlyArray<string> = []
    let callIndex = 0
    if (input.model !== null) {
      const picked = yield* modelKeySteps({
        runId: input.runId,
        causationId: input.causationId,
        callIndex: callIndex++,
        model: input.model,
        instruction: input.instruction,
        descriptions: descriptions.map((d) => ({ ...d, kind: input.demo.steps.find((s) => s.index === d.stepIndex)!.action.kind }))
      })
      keyStepModelCallIds = picked.modelCallIds
      // An answer that snapped to no step but the closing one (a refusal, prose) would leave a
      // demo whose only LF is "said complete": the embedded choice stands, and says so.
      const closing = input.demo.steps.at(-1)?.action.kind
      const onlyClosing = picked.keySteps.every(
        (k) => k.stepIndex === input.demo.steps.at(-1)?.index && (closing === "status" || closing === "answer")
      )
      if (!onlyClosing || input.demo.steps.length <= 1) {
        // The model chooses which steps; what kind of evidence each needs is still read off the step.
        // A caret key the model chose is judged by the edit it was part of (synthesis 5), not pressed again.
        keySteps = picked.keySteps
          .filter((k) => !partOfEdit(input.demo, k.stepIndex, keyStepOptions))
          .map(
            (k) =>
              embeddedKeys.find((e) => e.stepIndex === k.stepIndex) ?? {
                stepIndex: k.stepIndex,
                description: k.description,
                reason: "state-changing" as const
              }
          )
        keyStepMethod = "model"
      }
    }

    const labelFunctions: Array<LabelOutcome> = []
    for (const keyStep of keySteps) {
      if (input.model === null) {
        labelFunctions.push(yield* embedded(input, keyStep, { attempts: 0, modelCallIds: [], reason: null, code: null }))
        continue
      }
      const step = input.demo.steps.find((s) => s.index === keyStep.stepIndex)!
      const synthesized = yield* modelSynthesize({
        runId: input.runId,
        causationId: input.causationId,
        firstCallIndex: callIndex,
        model: input.model,
        instruction: input.instruction,
        keyStep: { stepIndex: keyStep.stepIndex, description: keyStep.description, step },
        context: contextOf(input.demo, descriptions, keyStep.stepIndex),
        apiDocs: input.guide === undefined ? LF_API_DOCS : lfApiGuide(input.guide),
        validate: (code) =>
          Effect.map(validateCandidate(input, keyStep.stepIndex, code), (j) =>
            j.accepted ? { accepted: true as const } : { accepted: false as const, reason: j.reason }
          )
      })
      callIndex += synthesized.attempts
      if (synthesized.accepted && synthesized.code !== null) {
        const judged = yield* validateCandidate(input, keyStep.stepIndex, synthesized.code)
        if (judged.accepted) {
          labelFunctions.push({
            kind: "inferred",
            keyStep,
            code: synthesized.code,
            method: "model",
            evidence: "model",
            attempts: synthesized.attempts,
            modelCallIds: synthesized.modelCallIds,
            validation: validationOf(judged)
          })
          continue
        }
      }
      labelFunctions.push(
        yield* embedded(input, keyStep, {
          attempts: synthesized.attempts,
          modelCallIds: synthesized.modelCallIds,
          reason: synthesized.reason === null ? null : `model: ${synthesized.reason}`,
          code: synthesized.code
        })
      )
    }
    return {
      descriptions,
      keySteps,
      keyStepMethod,
      keyStepModelCallIds,
      labelFunctions
    } satisfies InferenceResult
  })

/** Only Models when a model is configured; the type says what the effect may use. */
export type InferenceServices = Sandbox | Models
