/**
 * Keeping what the pages read current with the log: the read models are caught up before
 * each page (one catch-up shared by the requests that arrive while it runs), and run logs
 * are read once per log head (a page reads its run's log several times; the log only grows).
 */
import { Effect } from "effect"
import type { CoreEvent } from "@core/events"
import { joinLines, messageOf } from "@core/events"
import { EventStore } from "@core/eventstore"
import type { ReadError } from "@core/eventstore"
import { projections, readCheckpoints, runProjector } from "@core/projections"
import type { ReadModels } from "@core/projections"
import { readRunLog } from "@core/engine"
import type { ReadModelLag } from "./Layout.ts"

export interface ReadModelSync {
  /** Catches the read models up with the log (not live) and says where they stand; never fails. */
  readonly catchUp: Effect.Effect<ReadModelLag, never, EventStore>
  /** A run's events with the workspace facts before its end (empty when there is no such run), cached per log head. */
  readonly runLog: (runId: string) => Effect.Effect<ReadonlyArray<CoreEvent>, ReadError, EventStore>
}

const line = (e: unknown): string => joinLines(messageOf(e))

/** Run logs kept at once: a page reads one or two runs, and a run's log can be large. */
const MAX_LOGS = 8

export const makeReadModelSync = (rm: ReadModels): ReadModelSync => {
  // The projector is not live: a page waits for it, and another projector (db project --follow) may share the database.
  const standing = Effect.gen(function* () {
    const head = yield* (yield* EventStore).head()
    const checkpoints = yield* readCheckpoints(rm)
    return { head, checkpoint: Math.min(...projections.map((p) => checkpoints.get(p.name)?.position ?? 0)) }
  })
  const once = Effect.gen(function* () {
    // Most pages find nothing new: the projector (and its writer thread) starts only when the log moved on.
    const before = yield* standing
    if (before.checkpoint >= before.head) return { ...before, problem: null }
    const problem = yield* runProjector(rm).pipe(
      Effect.as(null),
      Effect.catch((e) => Effect.succeed(`catch-up failed: ${line(e)}`))
    )
    return { ...(yield* standing), problem }
  }).pipe(Effect.catch((e) => Effect.succeed({ head: 0, checkpoint: 0, problem: line(e) })))

  let inFlight: Promise<ReadModelLag> | null = null
  const catchUp = Effect.flatMap(Effect.context<EventStore>(), (context) =>
    // A request that goes away must not stop the catch-up the others wait for: it runs outside any request's fiber.
    Effect.promise(() => {
      inFlight ??= Effect.runPromiseWith(context)(once).finally(() => {
        inFlight = null
      })
      return inFlight
    })
  )

  let logsAt = -1
  const logs = new Map<string, ReadonlyArray<CoreEvent>>()
  const runLog = (runId: string) =>
    Effect.gen(function* () {
      const head = yield* (yield* EventStore).head()
      if (head !== logsAt) {
        logs.clear()
        logsAt = head
      }
      const hit = logs.get(runId)
      if (hit !== undefined) return hit
      const events = yield* readRunLog(runId).pipe(
        Effect.map((log): ReadonlyArray<CoreEvent> => log.events),
        Effect.catchTag("RunNotFound", () => Effect.succeed([] as ReadonlyArray<CoreEvent>))
      )
      // The head may have moved while reading: keep only what is current.
      if (logsAt === head) {
        if (logs.size >= MAX_LOGS) logs.delete(logs.keys().next().value!)
        logs.set(runId, events)
      }
      return events
    })

  return { catchUp, runLog }
}
