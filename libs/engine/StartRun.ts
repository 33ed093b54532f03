/**
 * The first event of every run: `startRun` is the only way a RunStarted is built, so every
 * new run — run, demo, infer, eval — records its parameters the same way: the loaded
 * config, then keys no decider reads (`extra`), then the run's config as its codec encodes
 * it, version mark included, and a source for every key.
 *
 * The run's config type and its codec belong to the package whose deciders read it
 * (@core/pipeline's RunConfig), which depends on this one: the caller passes the codec, so
 * the engine types the config it records without importing the schema that reads it back.
 *
 * @example
 * const runId = yield* newRunId("infer")
 * const started = yield* startRun("infer", { value: config, codec: runConfigCodec, sources }, identity, runId)
 */
import { DateTime, Effect, Random, Schema } from "effect"
import { makeEvent, RunStarted, runStream } from "@core/events"
import type { DataOf, EventOf } from "@core/events"

/** What a new run records about the config and the machine: RunStarted's data but its command. */
export type RunIdentity = Omit<DataOf<typeof RunStarted>, "command">

/** How a run's config becomes RunStarted config keys, marked with its version so readers decode it strictly. */
export interface RunConfigCodec<C> {
  /** The key whose presence says the record was encoded from the schema (`run.configVersion`). */
  readonly versionKey: string
  readonly encode: (config: C) => Readonly<Record<string, unknown>>
}

/** A run's config as its RunStarted records it. */
export interface RecordedRunConfig<C> {
  readonly value: C
  readonly codec: RunConfigCodec<C>
  /** Recorded config no decider reads (the pack a run played): never one of the codec's keys. */
  readonly extra?: Readonly<Record<string, unknown>>
  /** Where each recorded key came from ("flag:--rounds"); "default" when absent. */
  readonly sources?: Readonly<Record<string, string>>
}

/** The plan's extra config would overwrite a key of the run's config: a caller's bug, refused before anything is logged. */
export class RunConfigClash extends Schema.TaggedError<RunConfigClash>()("RunConfigClash", {
  key: Schema.String,
  message: Schema.String
}) {}

export type RunStartedEvent = EventOf<typeof RunStarted>

/**
 * A new run id, `<prefix>-<time base 36>-<6 hex>`, from the Clock and Random services:
 * both are inputs, recorded in RunStarted's envelope.
 */
export const newRunId = (prefix: string) =>
  Effect.gen(function* () {
    const now = yield* DateTime.now
    const r = yield* Random.nextIntBetween(0, 0xffffff)
    return `${prefix}-${DateTime.toEpochMillis(now).toString(36)}-${r.toString(16).padStart(6, "0")}`
  })

/** The run's RunStarted, stamped now, on the run's own stream. */
export const startRun = <C>(command: string, run: RecordedRunConfig<C>, identity: RunIdentity, runId: string) =>
  Effect.gen(function* () {
    const keys = run.codec.encode(run.value)
    if (!(run.codec.versionKey in keys)) return yield* Effect.die(new Error(`the run config codec left out ${run.codec.versionKey}`))
    const clash = Object.keys(run.extra ?? {}).find((k) => k in keys)
    if (clash !== undefined)
      return yield* new RunConfigClash({
        key: clash,
        message: `the plan's extra config sets ${clash}, a run config key: set it on the plan`
      })
    const recorded = { ...run.extra, ...keys }
    const sources = run.sources ?? {}
    return makeEvent(RunStarted, {
      stream: runStream(runId, "run", runId),
      runId,
      causationId: null,
      ordinal: 0,
      recordedAt: DateTime.formatIso(yield* DateTime.now),
      data: {
        ...identity,
        config: { ...identity.config, ...recorded },
        configSources: {
          ...identity.configSources,
          ...Object.fromEntries(Object.keys(recorded).map((k) => [k, sources[k] ?? "default"]))
        },
        command
      }
    })
  })
