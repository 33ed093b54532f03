/**
 * Tasks into the log: one `TaskRegistered` per task on `ws.task.<id>`, written only when
 * the registration is new or changed, so registering again is cheap and A→B→A stays three
 * distinct events.
 *
 * @example
 * const counts = yield* registerTasks(tasks.map((t) => t.registration), (l) => console.error(l))
 */
import { DateTime, Effect } from "effect"
import { canonicalJson, digest, makeEvent, TaskRegistered, workspaceStream } from "@core/events"
import { EventStore } from "@core/eventstore"
import type { TaskRegistration } from "./RunApp.ts"

/** Writes a TaskRegistered for each registration that changed (or is new); says so per task. */
export const registerTasks = (registrations: ReadonlyArray<TaskRegistration>, progress: (line: string) => void = () => {}) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const counts = { registered: 0, updated: 0, unchanged: 0 }
    for (const [i, data] of registrations.entries()) {
      const stream = workspaceStream("task", data.taskId)
      const history = yield* store.readStream(stream)
      const last = history.at(-1)
      const revision = last?.position ?? 0
      let what: keyof typeof counts = last === undefined ? "registered" : "updated"
      if (last !== undefined && last.event.type === "TaskRegistered" && canonicalJson(last.event.data) === canonicalJson(data))
        what = "unchanged"
      else {
        const recordedAt = DateTime.formatIso(yield* DateTime.now)
        // The id depends on the content and the revision it follows, so A→B→A is three distinct events.
        const event = makeEvent(TaskRegistered, {
          stream,
          runId: null,
          causationId: digest({ data, after: revision }),
          ordinal: 0,
          recordedAt,
          data
        })
        yield* store.append(stream, [event], { expectedRevision: revision })
      }
      counts[what]++
      progress(`${i + 1}/${registrations.length} ${data.taskId} ${what}`)
    }
    return counts
  })
