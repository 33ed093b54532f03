/**
 * Decision replay: read a run's log in order, fold every event into the deciders' states
 * (once per distinct state, as the live driver does), re-run the deciders on the events
 * they handle with *recorded* model and environment layers, and compare what they
 * re-derive with the logged decision events. Deciders are driven by the logged events, so one divergence does not cascade
 * into every later event and the first one reported is the one to look at.
 *
 * @example
 * const report = yield* replayRun({ runId: "demo-abc", registry: coreDeciders })
 * report.divergences[0] // { kind: "changed", id, type, stream, diff: [{ path: "data.params.blob", … }] }
 */
import { Effect, Layer, Result, Schema, Stream } from "effect"
import type { BlobStore, BlobStoreError } from "@core/blobstore"
import type { CoreEvent } from "@core/events"
import { EventStore } from "@core/eventstore"
import type { ReadError, RecordedEvent } from "@core/eventstore"
import { deciderStates, stamp } from "./Decider.ts"
import type { Sandbox } from "@core/sandbox"
import type { DeciderRegistry, DecisionServices, RecordedServices } from "./Decider.ts"
import { Randomness } from "./Prng.ts"
import { recordedModels, recordedObservations } from "./Recorded.ts"
import { recordedPublished } from "./Published.ts"
import { compareDecisions } from "./Compare.ts"
import type { Divergence, Rederived, DeciderFailure } from "./Compare.ts"

export class RunNotFound extends Schema.TaggedError<RunNotFound>()("RunNotFound", {
  runId: Schema.String
}) {
  override get message() {
    return /^[A-Za-z0-9_-]+$/.test(this.runId)
      ? `run ${this.runId} not found: no events under run.${this.runId}.>`
      : `run id ${JSON.stringify(this.runId)} is not a run id (letters, digits, '-' and '_')`
  }
}

export interface ReplayOptions {
  readonly runId: string
  readonly registry: DeciderRegistry
  /** Compare only the decision events of this round. */
  readonly round?: number
}

export interface ReplayReport {
  readonly runId: string
  /** Events read from the run's log. */
  readonly events: number
  /** Logged decision events compared. */
  readonly decisionEvents: number
  /** Decision events the deciders re-derived. */
  readonly rederived: number
  /** In log order; the first is the first divergence. */
  readonly divergences: ReadonlyArray<Divergence>
}

const tagOf = (e: unknown): string | undefined =>
  typeof e === "object" && e !== null && "_tag" in e ? String((e as { _tag: unknown })._tag) : undefined

/** The recorded layers for a log: what a replay provides its deciders. */
export const recordedServices = (events: ReadonlyArray<CoreEvent>): Layer.Layer<RecordedServices, never, BlobStore> => {
  const started = events.find((e) => e.type === "RunStarted")
  return Layer.mergeAll(
    recordedModels(events),
    recordedObservations(events),
    recordedPublished(events),
    Randomness.layer(started?.type === "RunStarted" ? started.data.seed : "")
  )
}

/** Re-runs the registry's deciders over a log, with whatever services are provided. */
export const rederive = Effect.fnUntraced(function* (
  events: ReadonlyArray<CoreEvent>,
  registry: DeciderRegistry
): Effect.fn.Return<{ rederived: Array<Rederived>; failures: Array<DeciderFailure> }, BlobStoreError, DecisionServices> {
  const states = deciderStates(registry)
  const rederived: Array<Rederived> = []
  const failures: Array<DeciderFailure> = []
  for (let index = 0; index < events.length; index++) {
    const event = events[index]!
    states.fold(event)
    for (const d of registry.handling(event.type)) {
      const result = yield* Effect.result(d.decide(states.of(d), event))
      if (Result.isFailure(result)) {
        // The blob store being down says nothing about the decision: the replay cannot run.
        if (tagOf(result.failure) === "BlobStoreError") return yield* Effect.fail(result.failure as BlobStoreError)
        failures.push({ causeIndex: index, decider: d.name, error: result.failure })
        continue
      }
      for (const decision of result.success) {
        rederived.push({ causeIndex: index, decider: d.name, event: stamp(decision, event.runId, event.recordedAt) })
      }
    }
  }
  return { rederived, failures }
})

export interface RunLog {
  /** The run's events and the workspace facts before its end, merged in log order. */
  readonly events: ReadonlyArray<CoreEvent>
  /** How many of them are the run's own. */
  readonly runEvents: number
  /** The run's own events with their log positions (a resumed run appends after them). */
  readonly run: ReadonlyArray<RecordedEvent>
  /** The workspace facts alone. */
  readonly workspace: ReadonlyArray<CoreEvent>
}

/**
 * A run's log as its deciders saw it: the run's events, with the workspace facts (tasks,
 * demos) logged before the run ended merged in at their log positions: the deciders folded
 * them too, so a replay must.
 */
export const readRunLog = Effect.fn("readRunLog")(function* (runId: string): Effect.fn.Return<RunLog, RunNotFound | ReadError, EventStore> {
  if (!/^[A-Za-z0-9_-]+$/.test(runId)) return yield* new RunNotFound({ runId })
  const store = yield* EventStore
  const read = yield* Stream.runCollect(store.readAll({ filter: `run.${runId}.>` }))
  if (read.length === 0) return yield* new RunNotFound({ runId })
  const last = read.at(-1)!.position
  const workspace = (yield* Stream.runCollect(store.readAll({ filter: "ws.>" }))).filter((r) => r.position < last)
  const merged = [...workspace, ...read].sort((a, b) => a.position - b.position || a.index - b.index)
  return { events: merged.map((r) => r.event), runEvents: read.length, run: read, workspace: workspace.map((r) => r.event) }
})

/** Replays one run from the EventStore, blobs from the BlobStore. */
export const replayRun = Effect.fn("replayRun")(function* (
  options: ReplayOptions
): Effect.fn.Return<ReplayReport, RunNotFound | ReadError | BlobStoreError, EventStore | BlobStore | Sandbox> {
  const { runId, registry } = options
  const { events, runEvents } = yield* readRunLog(runId)
  const { rederived, failures } = yield* Effect.provide(rederive(events, registry), recordedServices(events))
  const compared = compareDecisions({ events, registry, rederived, failures, round: options.round })
  return { runId, events: runEvents, ...compared }
})
