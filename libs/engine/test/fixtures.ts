/**
 * A small run with every kind of recorded input, and test deciders that use them: a judge
 * that reads a trajectory's observations (blobs checked by hash), asks a model, and draws
 * from the seeded PRNG to emit TrajectoryVerified. Variants change one thing each, so the
 * tests can check that replay reports exactly that change.
 */
import { Effect } from "effect"
import { BlobStore } from "@core/blobstore"
import { makeEvent, ModelCalled, RunStarted, runStream, sha256, TrajectoryRecorded, TrajectoryVerified } from "@core/events"
import type { Action, CoreEvent, Observation } from "@core/events"
import { EventStore } from "@core/eventstore"
import {
  decision,
  defineDecider,
  Models,
  Observations,
  Randomness,
  recordedServices,
  rederive,
  requestDigest,
  withDeciders,
  coreDeciders
} from "../mod.ts"
import type { ModelRequest } from "../mod.ts"

const AT = "2026-12-02T00:00:00.000Z"
const PROMPT = { name: "judge", version: "1", digest: sha256("judge prompt v1") }
export const LF_DONE = sha256("lf: a screenshot says done")

export interface JudgeVariant {
  /** Added to the model request body: a changed request. */
  readonly extraBody?: Record<string, unknown>
  /** Added to the node number the PRNG drew: a changed decision. */
  readonly nodeOffset?: number
  /** Replaces every action the judge replays: a changed action. */
  readonly action?: Action
}

const judgeRequest = (e: CoreEvent, hashes: ReadonlyArray<string | null>, v: JudgeVariant): ModelRequest => ({
  causationId: e.id,
  callIndex: 0,
  model: "test-model",
  purpose: "judge",
  prompt: PROMPT,
  body: { screenshots: hashes, ...v.extraBody }
})

export const makeJudge = (v: JudgeVariant = {}) =>
  defineDecider({
    name: "test-judge",
    version: "1",
    handles: ["TrajectoryRecorded"],
    emits: ["TrajectoryVerified"],
    decide: (_s, e) =>
      Effect.gen(function* () {
        if (e.type !== "TrajectoryRecorded") return []
        const env = yield* Observations
        const models = yield* Models
        const rng = (yield* Randomness).draws({ round: e.data.round, taskId: e.data.taskId, sample: e.data.sample, purpose: "judge" })
        const { trajectoryId, taskId } = e.data
        const seen = [yield* env.reset(trajectoryId)]
        for (const [k, step] of e.data.steps.entries()) seen.push(yield* env.act(trajectoryId, k, v.action ?? step.action))
        const done = seen.findIndex((o) => o.screenshot !== null && new TextDecoder().decode(o.screenshot).includes("done"))
        const answer = yield* models.complete(
          judgeRequest(
            e,
            seen.map((o) => o.observation.screenshot),
            v
          )
        )
        const verdict = answer.text.trim() === "pass" && done >= 0 ? "pass" : "fail"
        return [
          decision(TrajectoryVerified, {
            stream: e.stream,
            causationId: e.id,
            ordinal: 0,
            data: {
              trajectoryId,
              taskId,
              verdict,
              evidence: [{ lfId: LF_DONE, satisfiedAt: done - 1, error: null }],
              path: verdict === "pass" ? [`node-${rng.int(0, 1000) + (v.nodeOffset ?? 0)}`] : null
            }
          })
        ]
      })
  })

export const registryWith = (v: JudgeVariant = {}) => withDeciders(coreDeciders, [makeJudge(v)])

const observation = (screenshot: string, url: string): Observation => ({
  url,
  app: null,
  title: null,
  screenshot,
  elements: null,
  aria: null,
  truncated: false,
  error: null
})

export interface TestRun {
  readonly runId: string
  readonly trajectory: CoreEvent
  readonly modelCall: CoreEvent
  readonly verified: CoreEvent
  /** Screenshot hashes: initial, after step 0, after step 1. */
  readonly screenshots: ReadonlyArray<string>
}

/**
 * Writes a run as the pipeline would: inputs (RunStarted, the trajectory a worker recorded,
 * the model call the judge made) as facts, then the judge's decision appended after them.
 * Blobs carry the run id, so altering one run's blob never touches another's.
 */
export const writeTestRun = (runId: string) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const blobs = yield* BlobStore
    const put = (text: string) => blobs.put(new TextEncoder().encode(`${runId}: ${text}`))
    const screenshots = [yield* put("home page"), yield* put("a form"), yield* put("done: order placed")]
    const runS = runStream(runId, "run", runId)
    const started = makeEvent(RunStarted, {
      stream: runS,
      runId,
      causationId: null,
      ordinal: 0,
      recordedAt: AT,
      data: { config: {}, configSources: {}, seed: "42", code: { commit: null, dirty: false }, tools: {}, command: "test" }
    })
    yield* store.append(runS, [started], { expectedRevision: 0 })
    const trajS = runStream(runId, "trajectory", "t0")
    const steps: Array<{ action: Action; observation: Observation }> = [
      {
        action: { kind: "click", target: { role: "link", name: "Order", elementId: "3", text: null } },
        observation: observation(screenshots[1]!, "https://shop.test/form")
      },
      {
        action: { kind: "type", target: null, text: "42 Main St", submit: true },
        observation: observation(screenshots[2]!, "https://shop.test/done")
      }
    ]
    const trajectory = makeEvent(TrajectoryRecorded, {
      stream: trajS,
      runId,
      causationId: started.id,
      ordinal: 0,
      recordedAt: AT,
      data: {
        trajectoryId: "t0",
        taskId: "task-1",
        round: 1,
        sample: 0,
        policy: "test-policy",
        initial: observation(screenshots[0]!, "https://shop.test/"),
        steps,
        outcome: "completed",
        infraError: null,
        attempts: 1
      }
    })
    const r1 = yield* store.append(trajS, [trajectory], { expectedRevision: 0 })
    const request = judgeRequest(trajectory, screenshots, {})
    const modelS = runStream(runId, "model", "judge")
    const modelCall = makeEvent(ModelCalled, {
      stream: modelS,
      runId,
      causationId: trajectory.id,
      ordinal: 0,
      recordedAt: AT,
      data: {
        callIndex: 0,
        model: request.model,
        purpose: request.purpose,
        requestDigest: requestDigest(request),
        requestBlob: null,
        prompt: PROMPT,
        response: { text: "pass", finishReason: "stop", usage: { inputTokens: 10, outputTokens: 1 } },
        error: null,
        latencyMs: 12
      }
    })
    yield* store.append(modelS, [modelCall], { expectedRevision: 0 })
    const inputs = [started, trajectory, modelCall]
    const { rederived } = yield* Effect.provide(rederive(inputs, registryWith()), recordedServices(inputs))
    const verified = rederived[0]!.event
    yield* store.append(trajS, [verified], { expectedRevision: r1.revision })
    return { runId, trajectory, modelCall, verified, screenshots } satisfies TestRun
  })

let counter = 0
export const uniqueRun = () => `rp${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`
