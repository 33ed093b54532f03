/**
 * Runs deciders live, the way replay re-runs them (libs/engine/Replay.ts): every event is
 * folded into the deciders' states in log order (once per distinct state: deciders that
 * share an `evolve` share its state), the deciders that handle it decide,
 * and their decisions are stamped and appended — one commit per stream, or several when
 * they would not fit one message — then handled in turn. Inputs recorded while a decider ran (ModelCalled) enter the log before its
 * decisions, exactly where replay will find them.
 *
 * @example
 * const { events } = yield* drive({ registry, runId, prior: workspaceEvents, start: [runStarted], inputs })
 */
import { DateTime, Effect, Result } from "effect"
import { catalog } from "@core/events"
import type { CoreEvent } from "@core/events"
import { EventStore, MAX_COMMIT_BYTES } from "@core/eventstore"
import { deciderStates, stamp } from "./Decider.ts"
import type { DeciderRegistry, Decision, DecisionServices } from "./Decider.ts"

/** What a registry's deciders fail with: the union of their tagged errors. */
export type DecideError<R> = R extends DeciderRegistry<infer E> ? E : never

/** Events recorded by services while a decider ran (the live Models layer's ModelCalled). */
export interface RecordedInputs {
  /** Takes what was recorded since the last call. */
  readonly drain: () => ReadonlyArray<CoreEvent>
}

export interface DriveOptions<E = unknown> {
  readonly registry: DeciderRegistry<E>
  readonly runId: string
  /** Workspace facts already in the log (tasks, demos), in log order: folded, not handled. */
  readonly prior: ReadonlyArray<CoreEvent>
  /** The run's first events (RunStarted): appended, then handled. */
  readonly start: ReadonlyArray<CoreEvent>
  readonly inputs?: RecordedInputs
  /** Told of every event the run appends, in order. */
  readonly onEvent?: (e: CoreEvent) => void
  /**
   * Resuming a run: its logged events (in log order) are re-decided instead of `start`
   * being appended; decisions the log already holds (same id) are not appended again, and
   * appends continue from each stream's logged revision.
   */
  readonly resume?: { readonly events: ReadonlyArray<CoreEvent>; readonly revisions: ReadonlyMap<string, number> }
  /** Queued events decided at once when every decider handling them says `concurrent` (rollouts); default 1. */
  readonly concurrency?: number
}

/** Below the store's message limit with room for the envelope: a round's dataset is far larger than one message. */
const COMMIT_BUDGET = MAX_COMMIT_BYTES - 64 * 1024

/** A stream's decisions as consecutive commits, each under the message limit. */
export const commitsOf = (events: ReadonlyArray<CoreEvent>): ReadonlyArray<ReadonlyArray<CoreEvent>> => {
  const out: Array<Array<CoreEvent>> = []
  let current: Array<CoreEvent> = []
  let bytes = 0
  for (const e of events) {
    const size = Buffer.byteLength(JSON.stringify(e))
    if (current.length > 0 && bytes + size > COMMIT_BUDGET) {
      out.push(current)
      current = []
      bytes = 0
    }
    current.push(e)
    bytes += size
  }
  if (current.length > 0) out.push(current)
  return out
}

/**
 * An event as every later reader of the log sees it: decoded from its stored encoding.
 * Deciders must decide on that form live too, or a value whose in-memory shape differs from
 * the decoded one (an action's keys in another order, serialised into a dataset record)
 * makes the live decision differ from its replay.
 */
export const asStored = (e: CoreEvent): CoreEvent => {
  const encoded = catalog.encode(e)
  if (Result.isFailure(encoded)) return e // the append refuses it, with the reason
  const decoded = catalog.decode(JSON.parse(encoded.success.json))
  return Result.isFailure(decoded) ? e : decoded.success
}

export const drive = <E>(options: DriveOptions<E>) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const { registry } = options
    const states = deciderStates(registry)
    for (const e of options.prior) states.fold(e)

    const revisions = new Map<string, number>(options.resume?.revisions ?? [])
    const logged = new Set((options.resume?.events ?? []).map((e) => e.id))
    const appended: Array<CoreEvent> = []
    /** Appends, and returns the events as stored, in the order given. */
    const append = (events: ReadonlyArray<CoreEvent>) =>
      Effect.gen(function* () {
        const stored = new Map<string, CoreEvent>()
        // One commit per stream, in first-appearance order: a commit holds one stream's events.
        const streams = [...new Set(events.map((e) => e.stream))]
        for (const stream of streams) {
          for (const batch of commitsOf(events.filter((e) => e.stream === stream))) {
            const result = yield* store.append(stream, batch, { expectedRevision: revisions.get(stream) ?? 0 })
            revisions.set(stream, result.revision)
            for (const e of batch) {
              const read = asStored(e)
              stored.set(e.id, read)
              appended.push(read)
              options.onEvent?.(read)
            }
          }
        }
        return events.map((e) => stored.get(e.id)!)
      })

    const queue: Array<CoreEvent> = options.resume === undefined ? [] : [...options.resume.events]
    if (options.resume === undefined) {
      queue.push(...(yield* append(options.start)))
    }
    const concurrency = Math.max(1, options.concurrency ?? 1)
    const concurrent = (e: CoreEvent) => {
      const handlers = registry.handling(e.type)
      return handlers.length > 0 && handlers.every((d) => d.concurrent?.(e) === true)
    }
    for (let i = 0; i < queue.length; ) {
      // A batch: this event alone, or a run of consecutive events that may be decided at once.
      let end = i + 1
      if (concurrency > 1 && concurrent(queue[i]!)) {
        while (end < queue.length && end - i < concurrency && concurrent(queue[end]!)) end++
      }
      // Each event is decided on the states as of itself, as in replay: fold, then snapshot.
      const jobs: Array<Effect.Effect<ReadonlyArray<Decision>, E, DecisionServices>> = []
      for (let k = i; k < end; k++) {
        const event = queue[k]!
        states.fold(event)
        for (const d of registry.handling(event.type)) {
          // The registry's type holds the union of its deciders' errors; each decider is stored untyped.
          jobs.push(d.decide(states.of(d), event) as Effect.Effect<ReadonlyArray<Decision>, E, DecisionServices>)
        }
      }
      const decided = yield* Effect.all(jobs, { concurrency: end - i })
      // Inputs recorded while deciding are already in the log, before the decisions: they
      // join the queue there, so the fold order is the log order, as in replay.
      for (const recorded of options.inputs?.drain() ?? []) {
        const input = asStored(recorded)
        queue.push(input)
        appended.push(input)
        options.onEvent?.(input)
      }
      i = end
      const decisions = decided.flat()
      if (decisions.length === 0) continue
      const at = DateTime.formatIso(yield* DateTime.now)
      const events = decisions.map((d) => stamp(d, options.runId, at)).filter((e) => !logged.has(e.id))
      // Ids are (causation, type, ordinal): two alike would be one event to replay and a lost one to the log.
      const ids = new Set<string>()
      const twice = events.find((e) => ids.size === ids.add(e.id).size)
      if (twice !== undefined)
        return yield* Effect.die(
          new Error(
            `decider bug: two ${twice.type} decisions of ${twice.causationId?.slice(0, 12)} share ordinal and id ${twice.id.slice(0, 12)}`
          )
        )
      if (events.length === 0) continue
      queue.push(...(yield* append(events)))
    }
    return { events: appended }
  })
