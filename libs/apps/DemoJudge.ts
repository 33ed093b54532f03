/**
 * A played demo judged by the pack's `evaluate` before it is accepted: on the instance it
 * was played on, with its last answer, while the lease still holds the demo's state. A demo
 * that does not do its task (exit 1) is refused with one line naming the task and the
 * verdict; an evaluate that cannot give a verdict (another exit, a timeout) is its own line.
 * Judging only gates which demos are taken as input: no decision reads the verdict.
 *
 * @example
 * yield* judgeDemo(app, lease, "t03-edit", played.steps.map((s) => s.action))
 * // DemoRejected: "demo of task t03-edit does not do the task: the pack's evaluate says fail (exit 1)"
 */
import { Effect } from "effect"
import type { Action } from "@core/events"
import { DemoRejected } from "@core/pipeline"
import type { AppShape } from "./App.ts"
import { InstanceError } from "./Instance.ts"
import type { Lease } from "./Pool.ts"

/** The last answer among `actions`, "" when there is none: what `evaluate` receives as `{answer}`. */
export const lastAnswer = (actions: ReadonlyArray<Action>): string => {
  const last = actions.filter((a) => a.kind === "answer").at(-1)
  return last?.kind === "answer" ? last.text : ""
}

/** Nothing when the pack has no `evaluate` or the demo passes it. */
export const judgeDemo = (
  app: AppShape,
  lease: Lease,
  taskId: string,
  actions: ReadonlyArray<Action>
): Effect.Effect<void, DemoRejected | InstanceError> =>
  app.evaluate === undefined
    ? Effect.void
    : app.evaluate(lease, taskId, lastAnswer(actions)).pipe(
        Effect.mapError((e) => new InstanceError({ app: e.app, reason: `cannot judge the demo of task ${taskId}: ${e.reason}` })),
        Effect.flatMap((verdict) =>
          verdict.pass
            ? Effect.void
            : Effect.fail(
                new DemoRejected({
                  taskId,
                  message: `demo of task ${taskId} does not do the task: the pack's evaluate says fail (exit 1)${verdict.said === "" ? "" : `: ${verdict.said}`}`
                })
              )
        )
      )
