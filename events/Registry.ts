/**
 * A catalog of event definitions: decodes any stored event into the current version of
 * its type (running upcasters over older versions) and encodes events for the store,
 * refusing any over {@link MAX_EVENT_BYTES}.
 *
 * Decoding never throws: an unknown type or version, or data that does not match its
 * schema, comes back as a typed failure the reader can report in one line.
 */
import { Result, Schema, SchemaAST } from "effect"
import * as SchemaJIT from "effect/schema/SchemaJITCompiler"
import { MAX_EVENT_BYTES, RawEnvelope } from "./Envelope.ts"
import { EventTooLarge, InvalidEvent, UnknownEventType, UnknownEventVersion } from "./Errors.ts"
import type { EventDecodeError, EventEncodeError } from "./Errors.ts"
import type { EventDefinition, EventEnvelope, EventOf } from "./Event.ts"
import { joinLines } from "./Text.ts"

/** Turns the data of `from` (an older version) into the data of `to` (the next one). */
export interface Upcaster<From extends EventDefinition = EventDefinition, To extends EventDefinition = EventDefinition> {
  readonly from: From
  readonly to: To
  // Method syntax on purpose: it is bivariant, so a typed upcaster fits in the registry's untyped list.
  up(data: From["data"]["Type"]): To["data"]["Type"]
}

export const upcaster = <From extends EventDefinition, To extends EventDefinition>(
  from: From,
  to: To,
  up: (data: From["data"]["Type"]) => To["data"]["Type"]
): Upcaster<From, To> => ({ from, to, up })

export interface EncodedEvent {
  readonly event: EventEnvelope
  /** The event as JSON text, exactly as stored. */
  readonly json: string
  readonly bytes: number
}

export interface Registry<Event extends EventEnvelope> {
  readonly definitions: ReadonlyArray<EventDefinition>
  /** Current version of each type. */
  readonly current: ReadonlyMap<string, EventDefinition>
  decode(raw: unknown): Result.Result<Event, EventDecodeError>
  decodeJson(json: string): Result.Result<Event, EventDecodeError>
  encode(event: Event): Result.Result<EncodedEvent, EventEncodeError>
  /**
   * {@link encode}'s JSON alone, with the same checks and errors: the append's hot path. A
   * UTF-16 code unit is at most three UTF-8 bytes, so the exact byte count is only taken
   * for events long enough to be near the limit.
   */
  encodeJson(event: Event): Result.Result<string, EventEncodeError>
}

/**
 * Every append encodes its events and every read decodes them, so the catalog's schemas are
 * compiled to plain functions (Effect's schema JIT) instead of walked by the interpreter:
 * about half the cost per event, same checks and the same error messages (a failure is
 * re-run through the interpreter to describe it; where code generation is refused the
 * interpreter is used throughout).
 */
const compile = (schema: Schema.Top): void => {
  SchemaJIT.enable(schema.ast)
  SchemaJIT.enable(SchemaAST.flip(schema.ast))
}

compile(RawEnvelope)
const decodeRaw = Schema.decodeUnknownResult(RawEnvelope)

/** Schema messages span lines ("Missing key\n  at [\"data\"]…"); a reader reports a reason in one. */

export const makeRegistry = <const Defs extends ReadonlyArray<EventDefinition>>(
  definitions: Defs,
  upcasters: ReadonlyArray<Upcaster> = []
): Registry<EventOf<Defs[number]>> => {
  type Event = EventOf<Defs[number]>
  const current = new Map<string, EventDefinition>()
  for (const d of definitions) {
    if (current.has(d.type)) throw new Error(`event type ${d.type} is defined twice`)
    current.set(d.type, d)
    compile(d.schema)
  }
  const byFromKey = new Map<string, Upcaster>()
  for (const u of upcasters) {
    if (u.from.type !== u.to.type || u.to.version !== u.from.version + 1) {
      throw new Error(`upcaster ${u.from.type} v${u.from.version} → ${u.to.type} v${u.to.version} must go one version up`)
    }
    byFromKey.set(`${u.from.type}@${u.from.version}`, u)
  }
  const knownVersions = (type: string): Array<number> => {
    const cur = current.get(type)
    const versions = upcasters.filter((u) => u.from.type === type).map((u) => u.from.version)
    return cur ? [...versions, cur.version].sort((a, b) => a - b) : versions
  }
  const decoders = new Map<EventDefinition, (u: unknown) => Result.Result<unknown, Schema.SchemaError>>()
  const encoders = new Map<EventDefinition, (u: unknown) => Result.Result<unknown, Schema.SchemaError>>()
  const decoderOf = (d: EventDefinition) => {
    let f = decoders.get(d)
    if (!f) decoders.set(d, (f = Schema.decodeUnknownResult(d.schema as Schema.Codec<unknown, unknown>)))
    return f
  }
  const dataDecoderOf = (d: EventDefinition) => Schema.decodeUnknownResult(d.data as Schema.Codec<unknown, unknown>)
  const encoderOf = (d: EventDefinition) => {
    let f = encoders.get(d)
    if (!f) encoders.set(d, (f = Schema.encodeUnknownResult(d.schema as Schema.Codec<unknown, unknown>)))
    return f
  }

  const decode = (raw: unknown): Result.Result<Event, EventDecodeError> => {
    // Nearly every stored event is of a current version: its full schema checks the envelope
    // too, so the separate envelope pass is only needed to tell what is wrong with the rest.
    const claimed = current.get((raw as { type?: unknown } | null)?.type as string)
    if (claimed !== undefined && (raw as { version?: unknown }).version === claimed.version) {
      const r = decoderOf(claimed)(raw)
      if (Result.isSuccess(r)) return Result.succeed(r.success as Event)
    }
    const env = decodeRaw(raw)
    if (Result.isFailure(env)) {
      const r = raw as { type?: unknown; version?: unknown } | null
      return Result.fail(
        new InvalidEvent({
          type: typeof r?.type === "string" ? r.type : "?",
          version: typeof r?.version === "number" ? r.version : -1,
          reason: joinLines(env.failure.message)
        })
      )
    }
    const e = env.success
    const target = current.get(e.type)
    if (!target) return Result.fail(new UnknownEventType({ type: e.type, version: e.version }))
    if (e.version === target.version) {
      const r = decoderOf(target)(raw)
      return Result.isFailure(r)
        ? Result.fail(new InvalidEvent({ type: e.type, version: e.version, reason: joinLines(r.failure.message) }))
        : Result.succeed(r.success as Event)
    }
    // Walk the chain of upcasters from the stored version to the current one.
    let version = e.version
    const first = byFromKey.get(`${e.type}@${version}`)
    if (!first || version > target.version) {
      return Result.fail(new UnknownEventVersion({ type: e.type, version: e.version, known: knownVersions(e.type) }))
    }
    const oldEvent = decoderOf(first.from)(raw)
    if (Result.isFailure(oldEvent)) {
      return Result.fail(new InvalidEvent({ type: e.type, version, reason: joinLines(oldEvent.failure.message) }))
    }
    let data = (oldEvent.success as EventEnvelope).data
    let step: Upcaster | undefined = first
    while (step) {
      try {
        data = step.up(data)
      } catch (err) {
        // An upcaster is code, and a bug in it must not crash a reader of the log.
        const reason = `upcast v${step.from.version} → v${step.to.version} threw: ${joinLines(String((err as Error)?.message ?? err))}`
        return Result.fail(new InvalidEvent({ type: e.type, version: e.version, reason }))
      }
      version = step.to.version
      step = version === target.version ? undefined : byFromKey.get(`${e.type}@${version}`)
      if (!step && version !== target.version) {
        return Result.fail(new UnknownEventVersion({ type: e.type, version: e.version, known: knownVersions(e.type) }))
      }
    }
    // Re-validate: an upcaster is code too, and its output must match the current schema.
    const checked = dataDecoderOf(target)(data)
    if (Result.isFailure(checked)) {
      return Result.fail(new InvalidEvent({ type: e.type, version: e.version, reason: `upcast: ${joinLines(checked.failure.message)}` }))
    }
    return Result.succeed({ ...(oldEvent.success as EventEnvelope), version: target.version, data: checked.success } as Event)
  }

  const decodeJson = (json: string): Result.Result<Event, EventDecodeError> => {
    let raw: unknown
    try {
      raw = JSON.parse(json)
    } catch (e) {
      return Result.fail(new InvalidEvent({ type: "?", version: -1, reason: `not JSON: ${joinLines(String((e as Error).message))}` }))
    }
    return decode(raw)
  }

  /** The event checked against its schema and spelled as stored, before any size limit. */
  const encodeUnchecked = (event: Event): Result.Result<string, InvalidEvent> => {
    const d = current.get(event.type)
    if (!d || d.version !== event.version) {
      return Result.fail(new InvalidEvent({ type: event.type, version: event.version, reason: "not the current version of a known type" }))
    }
    const enc = encoderOf(d)(event)
    if (Result.isFailure(enc)) {
      return Result.fail(new InvalidEvent({ type: event.type, version: event.version, reason: joinLines(enc.failure.message) }))
    }
    return Result.succeed(JSON.stringify(enc.success))
  }

  const tooLarge = (event: Event, bytes: number) => new EventTooLarge({ type: event.type, id: event.id, bytes, limit: MAX_EVENT_BYTES })

  const encode = (event: Event): Result.Result<EncodedEvent, EventEncodeError> => {
    const json = encodeUnchecked(event)
    if (Result.isFailure(json)) return Result.fail(json.failure)
    const bytes = Buffer.byteLength(json.success)
    return bytes > MAX_EVENT_BYTES ? Result.fail(tooLarge(event, bytes)) : Result.succeed({ event, json: json.success, bytes })
  }

  const encodeJson = (event: Event): Result.Result<string, EventEncodeError> => {
    const json = encodeUnchecked(event)
    if (Result.isFailure(json) || json.success.length * 3 <= MAX_EVENT_BYTES) return json
    const bytes = Buffer.byteLength(json.success)
    return bytes > MAX_EVENT_BYTES ? Result.fail(tooLarge(event, bytes)) : json
  }

  return { definitions, current, decode, decodeJson, encode, encodeJson }
}
