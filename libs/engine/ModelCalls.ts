/**
 * Model calls as a command records them live: each ModelCalled is appended to its stream as
 * the call returns (conditional on the stream's revision), and handed to the driver, which
 * places it in the fold where it sits in the log.
 *
 * @example
 * const calls = modelCallRecorder(store)
 * ModelClient.layer({ ...server, runId, record: calls.record }); drive({ …, inputs: calls })
 */
import { Effect } from "effect"
import type { CoreEvent } from "@core/events"
import type { EventStoreShape } from "@core/eventstore"

type ModelCalledEvent = Extract<CoreEvent, { type: "ModelCalled" }>

export const modelCallRecorder = (store: EventStoreShape) => {
  const recorded: Array<CoreEvent> = []
  const revisions = new Map<string, number>()
  return {
    record: (event: ModelCalledEvent) =>
      Effect.gen(function* () {
        const r = yield* store.append(event.stream, [event], { expectedRevision: revisions.get(event.stream) ?? 0 })
        revisions.set(event.stream, r.revision)
        recorded.push(event)
      }),
    /** Takes what was recorded since the last call. */
    drain: () => recorded.splice(0)
  }
}
