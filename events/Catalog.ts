/**
 * The one event catalog: every event type CORE writes, and the upcasters that read old
 * versions. Later issues add data to these definitions rather than reshape them.
 */
import { makeRegistry } from "./Registry.ts"
import type { EventOf } from "./Event.ts"
import { JobCompleted, JobQueued } from "./Job.ts"
import { PolicyTrained, RoundCompleted, RoundStarted, RunStarted } from "./Run.ts"

export const definitions = [
  RunStarted,
  RoundStarted,
  RoundCompleted,
  PolicyTrained,
  JobQueued,
  JobCompleted
] as const

export const catalog = makeRegistry(definitions, [])

/** Any event of the catalog, decoded to its current version. */
export type CoreEvent = EventOf<(typeof definitions)[number]>
export type CoreEventType = CoreEvent["type"]
