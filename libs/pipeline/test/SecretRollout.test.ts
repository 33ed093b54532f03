/**
 * A rollout whose actions type passwords: live in Chromium, the trajectory records the one
 * a configured secret holds by reference and any other masked — the event holds neither in
 * clear — and replaying the record re-derives the very same trajectory.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect, Layer, Schema } from "effect"
import { makeEvent, runStream, TrajectoryRecorded } from "@core/events"
import type { Action } from "@core/events"
import { Randomness, recordedObservations } from "@core/engine"
import { startRuntime, startSite } from "../../env-web/test/fixtures.ts"
import { liveObservations } from "../LiveObservations.ts"
import { rollout, trajectoryIdOf } from "../Rollout.ts"
import type { RolloutInput } from "../Rollout.ts"
import { noModels } from "@core/engine"

const SEED = "0123456789abcdef0123456789abcdef"
const RUN = "secret-rollout-test"
const KNOWN = "letmein-42"
const OTHER = "guess-1234"
const VAR = "CORE_TEST_ROLLOUT_PASSWORD"
const site = startSite()
const rt = startRuntime()
afterAll(async () => {
  await rt.dispose()
  site.stop()
})

const secret = { role: "textbox", name: "Secret", elementId: "e0", text: null }
const typing = (text: string): Action => ({ kind: "type", target: secret, text })
const input: RolloutInput = {
  causationId: `${RUN}-cause`,
  trajectoryId: trajectoryIdOf(1, "form-login", 0),
  taskId: "form-login",
  instruction: "Sign in.",
  round: 1,
  sample: 0,
  stepBudget: 0,
  policy: { kind: "exploration" },
  prefix: [typing(KNOWN), typing(OTHER)]
}

describe("a rollout that types passwords", () => {
  test("records them by reference or masked, and replays from that record", async () => {
    const data = await rt.withEnv(
      { screenshots: "none", settleMs: 300, secretEnvs: [VAR], readSecret: (n) => (n === VAR ? KNOWN : undefined) },
      (env) =>
        rollout(input).pipe(
          Effect.provide(
            Layer.mergeAll(
              liveObservations({ environments: [env], taskOf: (taskId) => ({ taskId, startUrl: site.url("/form") }) }),
              Randomness.layer(SEED),
              noModels
            )
          )
        )
    )
    expect(data.steps.map((s) => s.action)).toEqual([
      { kind: "type", target: expect.objectContaining({ name: "Secret" }), text: "", secretEnv: VAR },
      { kind: "type", target: expect.objectContaining({ name: "Secret" }), text: "•".repeat(OTHER.length) }
    ])
    const event = makeEvent(TrajectoryRecorded, {
      stream: runStream(RUN, "trajectory", data.trajectoryId),
      runId: RUN,
      causationId: input.causationId,
      ordinal: 0,
      recordedAt: "2026-12-02T12:00:00.000Z",
      data
    })
    const json = JSON.stringify(event)
    expect(json).not.toContain(KNOWN)
    expect(json).not.toContain(OTHER)

    const logged = Schema.decodeUnknownSync(TrajectoryRecorded.schema)(JSON.parse(json))
    const again = await rt.runtime.runPromise(
      rollout(input).pipe(Effect.provide(Layer.mergeAll(recordedObservations([logged]), Randomness.layer(SEED), noModels)))
    )
    expect(again).toEqual(data)
  }, 120_000)
})
