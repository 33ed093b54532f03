/**
 * Which of a worker's model calls the driver logs: given a result's calls and what the
 * driver's own replay consumed, then all of them, or a refusal that says why — another run,
 * another stream (the log anywhere), a call the episode did not make, the same call twice.
 */
import { describe, expect, test } from "bun:test"
import type { CoreEvent } from "@core/events"
import { modelCallStream } from "@core/models"
import { callKey, callsToLog } from "../ModelCallCheck.ts"

type ModelCalled = Extract<CoreEvent, { type: "ModelCalled" }>
const RUN = "run-abc"
const CAUSE = "0123456789abcdef0123"
const call = (callIndex: number, o: { runId?: string; stream?: string; causationId?: string } = {}): ModelCalled =>
  ({
    type: "ModelCalled",
    id: `e${callIndex}`,
    runId: o.runId ?? RUN,
    causationId: o.causationId ?? CAUSE,
    stream: o.stream ?? modelCallStream(RUN, o.causationId ?? CAUSE),
    data: { callIndex }
  }) as unknown as ModelCalled

describe("a worker's model calls", () => {
  const consumed = new Set([callKey(CAUSE, 0), callKey(CAUSE, 1)])
  const cases: ReadonlyArray<[string, ReadonlyArray<ModelCalled>, string | null]> = [
    ["the calls the replay made", [call(0), call(1)], null],
    ["none (an exploration episode)", [], null],
    ["a call of another run", [call(0, { runId: "run-other" })], "a model call of another run (run-other)"],
    [
      "a call addressed to a stream outside the run",
      [call(0, { stream: "ws.evil.injected" })],
      "a model call addressed to another stream (ws.evil.injected)"
    ],
    [
      "a call on another task's stream",
      [call(0, { stream: `run.${RUN}.task.t1` })],
      `a model call addressed to another stream (run.${RUN}.task.t1)`
    ],
    ["a call the episode did not make", [call(0), call(2)], "a model call its episode did not make (call 2)"],
    ["the same call twice", [call(0), call(0)], "model call 0 of its cause twice"]
  ]
  test.each(cases)("given %s, then logged or refused", (_, calls, reason) => {
    const r = callsToLog(RUN, calls, consumed)
    expect(r.ok ? null : r.reason).toBe(reason)
    if (r.ok) expect(r.calls).toEqual(calls)
  })
})
