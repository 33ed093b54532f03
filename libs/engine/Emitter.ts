/**
 * A decision's events, numbered as they are emitted: an event's id is (run, cause, type,
 * ordinal), so each type counts from 0 per cause, in emission order. Every decider that
 * emits several events of a type numbers them here, so no two count differently.
 *
 * @example
 * const out = emitter(jobQueued)
 * const id = out.emit(JobCompleted, { jobId, outcome: "done", … }) // ordinal 0, on the job's stream
 * out.emitOn(PathAdded, graphStream, path)
 * return out.made
 */
import { eventId } from "@core/events"
import type { CoreEvent, DataOf, EventDefinition } from "@core/events"
import { decision } from "./Decider.ts"
import type { Decision } from "./Decider.ts"

export interface Emitter {
  /** The decisions emitted so far, in emission order: what `decide` returns. */
  readonly made: ReadonlyArray<Decision>
  /** Emits on the emitter's stream; returns the id the event will have. */
  emit<D extends EventDefinition>(definition: D, data: DataOf<D>): string
  /** Emits on another stream, numbered with the rest. */
  emitOn<D extends EventDefinition>(definition: D, stream: string, data: DataOf<D>): string
}

/** An emitter for the decisions `cause` causes; `stream` defaults to the cause's own. */
export const emitter = (cause: CoreEvent, stream: string = cause.stream): Emitter => {
  const made: Array<Decision> = []
  const ordinals = new Map<string, number>()
  const emitOn = <D extends EventDefinition>(definition: D, on: string, data: DataOf<D>) => {
    const ordinal = ordinals.get(definition.type) ?? 0
    ordinals.set(definition.type, ordinal + 1)
    made.push(decision(definition, { stream: on, causationId: cause.id, ordinal, data }))
    return eventId({ runId: cause.runId, causationId: cause.id, type: definition.type, ordinal })
  }
  return { made, emit: (definition, data) => emitOn(definition, stream, data), emitOn }
}
