/**
 * Defining an event type: a name, a version and the schema of its data.
 *
 * @example
 * export const JobQueued = defineEvent("JobQueued", 1, Schema.Struct({ jobId: Schema.String }))
 * const event = makeEvent(JobQueued, { stream: "run.r1.job.j1", runId: "r1", causationId: null,
 *   ordinal: 0, recordedAt: "2026-01-01T00:00:00.000Z", data: { jobId: "j1" } })
 */
import { Schema } from "effect"
import { envelopeFields, eventId } from "./Envelope.ts"

export interface EventDefinition<T extends string = string, V extends number = number, D extends Schema.Top = Schema.Top> {
  readonly type: T
  readonly version: V
  readonly data: D
  /** The whole envelope with `type` and `version` fixed to this definition. */
  readonly schema: Schema.Codec<EventEnvelope<T, V, D["Type"]>, EncodedEnvelope<T, V, D["Encoded"]>>
}

export interface EventEnvelope<T extends string = string, V extends number = number, Data = unknown> {
  readonly id: string
  readonly type: T
  readonly version: V
  readonly stream: string
  readonly runId: string | null
  readonly causationId: string | null
  readonly recordedAt: string
  readonly data: Data
}

export type EncodedEnvelope<T extends string = string, V extends number = number, Data = unknown> = EventEnvelope<T, V, Data>

/** The decoded event a definition describes. */
export type EventOf<D extends EventDefinition> =
  D extends EventDefinition<infer T, infer V, infer S> ? EventEnvelope<T, V, S["Type"]> : never

/** The event's data as its definition describes it. */
export type DataOf<D extends EventDefinition> = D["data"]["Type"]

export const defineEvent = <const T extends string, const V extends number, D extends Schema.Top>(
  type: T,
  version: V,
  data: D
): EventDefinition<T, V, D> => ({
  type,
  version,
  data,
  schema: Schema.Struct({
    ...envelopeFields,
    type: Schema.Literal(type),
    version: Schema.Literal(version),
    data
  }) as unknown as EventDefinition<T, V, D>["schema"]
})

export interface NewEventInput<Data> {
  readonly stream: string
  readonly runId: string | null
  readonly causationId: string | null
  /** Position of this event among the events of its type that one cause produced. */
  readonly ordinal: number
  /** From the Clock service; it is left out of replay comparisons. */
  readonly recordedAt: string
  readonly data: Data
}

/** Builds an event with its deterministic id. */
export const makeEvent = <D extends EventDefinition>(definition: D, input: NewEventInput<DataOf<D>>): EventOf<D> =>
  ({
    id: eventId({ runId: input.runId, causationId: input.causationId, type: definition.type, ordinal: input.ordinal }),
    type: definition.type,
    version: definition.version,
    stream: input.stream,
    runId: input.runId,
    causationId: input.causationId,
    recordedAt: input.recordedAt,
    data: input.data
  }) as EventOf<D>
