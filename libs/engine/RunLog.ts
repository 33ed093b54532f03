/**
 * Reading runs back from the log for the commands that explain them (`graph show`, `audit
 * trajectory`): which runs have a stream, which run is the latest, and a run's events merged
 * with the workspace facts logged before it ended — the same input a replay folds
 * (Replay.ts), so what these commands show is what the deciders saw.
 *
 * @example
 * const runs = yield* runsWith("run.*.graph.shop-cart-1") // oldest first
 * const log = yield* runLog(runs.at(-1)!)
 */
import { Effect, Schema, Stream } from "effect"
import { runOfStream } from "@core/events"
import type { CoreEvent } from "@core/events"
import { EventStore } from "@core/eventstore"
import type { RecordedEvent } from "@core/eventstore"
import { readRunLog } from "./Replay.ts"

/** A run id, task id or trajectory id is one subject token: no dots, no wildcards. */
export const isToken = (s: string): boolean => /^[A-Za-z0-9_-]+$/.test(s)

/** The events of every filter, in log order (a commit's events in their order). */
export const readLog = (filters: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const all: Array<RecordedEvent> = []
    for (const filter of filters) all.push(...(yield* Stream.runCollect(store.readAll({ filter }))))
    return all.sort((a, b) => a.position - b.position || a.index - b.index)
  })

/** Just the events. */
export const readEvents = (filters: ReadonlyArray<string>) => Effect.map(readLog(filters), (rs) => rs.map((r) => r.event))

/**
 * The runs with at least one event under `filter` (a `run.*.…` pattern), oldest first: by
 * where their RunStarted sits in the log (the first event seen when there is none).
 */
export const runsWith = (filter: string) =>
  Effect.gen(function* () {
    const hits = yield* readLog([filter])
    const first = new Map<string, number>()
    for (const r of hits) {
      const id = r.event.runId ?? runOfStream(r.event.stream)
      if (id !== null && !first.has(id)) first.set(id, r.position)
    }
    if (first.size === 0) return []
    const started = yield* readLog(["run.*.run.*"])
    const at = new Map<string, number>()
    for (const r of started) {
      const id = r.event.runId ?? runOfStream(r.event.stream)
      if (r.event.type === "RunStarted" && id !== null && !at.has(id)) at.set(id, r.position)
    }
    return [...first.keys()].sort((a, b) => (at.get(a) ?? first.get(a)!) - (at.get(b) ?? first.get(b)!))
  })

/** Does the run exist (any event under `run.<runId>.>`)? */
export const runExists = (runId: string) =>
  Effect.gen(function* () {
    if (!isToken(runId)) return false
    const store = yield* EventStore
    const one = yield* Stream.runCollect(Stream.take(store.readAll({ filter: `run.${runId}.>` }), 1))
    return one.length > 0
  })

/** A `--run` value that names no run: one line, saying how a run is started. */
export class UnknownRun extends Schema.TaggedError<UnknownRun>()("UnknownRun", {
  runId: Schema.String
}) {
  override get message() {
    return isToken(this.runId)
      ? `run ${this.runId} not found: no events under run.${this.runId}.> (bun core run starts one)`
      : `${JSON.stringify(this.runId)} is not a run id (letters, digits, '-' and '_')`
  }
}

/** A `--run` value that names no run. */
export const unknownRun = (runId: string): UnknownRun => new UnknownRun({ runId })

/** A run's events with the workspace facts logged before its last event (`readRunLog`, as replay reads it); empty when there is no such run. */
export const runLog = (runId: string) =>
  readRunLog(runId).pipe(
    Effect.map((log) => log.events),
    Effect.catchTag("RunNotFound", () => Effect.succeed([] as ReadonlyArray<CoreEvent>))
  )
