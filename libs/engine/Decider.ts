/**
 * Deciders: the CORE logic as pure functions from (state, an event) to the events it
 * causes, so that a logged run can be decided again and compared (decision replay). A
 * decider reads no clock and no `Math.random`; every nondeterministic input comes through
 * {@link DecisionServices}, whose recorded layers let a replay run it again without
 * Chromium or a model server. A decider returns *decisions* — events without `recordedAt`,
 * which the pipeline stamps — so nothing it returns depends on the clock.
 *
 * @example
 * const echo = defineDecider({
 *   name: "echo", version: "1", handles: ["JobQueued"], emits: ["JobCompleted"],
 *   decide: (_state, e) => Effect.succeed(e.type === "JobQueued" ? [decision(JobCompleted, {
 *     stream: e.stream, causationId: e.id, ordinal: 0,
 *     data: { jobId: e.data.jobId, outcome: "done", worker: "echo", attempts: 1, produced: [], error: null } })] : [])
 * })
 * const registry = makeDeciderRegistry([echo])
 */
import type { Effect } from "effect"
import { makeEvent } from "@core/events"
import type { CoreEvent, CoreEventType, DataOf, EventDefinition } from "@core/events"
import type { BlobStore } from "@core/blobstore"
import type { Sandbox } from "@core/sandbox"
import type { Models, Observations } from "./Services.ts"
import type { Randomness } from "./Prng.ts"

/** The services through which all nondeterminism enters a decider; replay serves them from the log. */
export type RecordedServices = Models | Observations | Randomness

/**
 * What a decider may use: the recorded services, plus the content-addressed blob store and
 * the LF sandbox — both deterministic, so replay uses the real ones.
 */
export type DecisionServices = RecordedServices | BlobStore | Sandbox

/** An event a decider chose to emit, before the pipeline stamps its `recordedAt`. */
export interface Decision {
  readonly definition: EventDefinition
  readonly stream: string
  readonly causationId: string
  /** Position among the events of this type that one cause produced. */
  readonly ordinal: number
  readonly data: unknown
}

export const decision = <D extends EventDefinition>(
  definition: D,
  input: { readonly stream: string; readonly causationId: string; readonly ordinal: number; readonly data: DataOf<D> }
): Decision => ({ definition, ...input })

/** The event a decision becomes once the pipeline gives it the run and the time. */
export const stamp = (d: Decision, runId: string | null, recordedAt: string): CoreEvent =>
  makeEvent(d.definition, {
    stream: d.stream,
    runId,
    causationId: d.causationId,
    ordinal: d.ordinal,
    recordedAt,
    data: d.data
  }) as CoreEvent

export interface Decider<S = unknown, E = unknown, R extends DecisionServices = DecisionServices> {
  /** Unique in a registry; reports name the decider whose events diverged. */
  readonly name: string
  /** Bump when the logic changes on purpose, so a divergence is expected and explainable. */
  readonly version: string
  /** Event types it reacts to. */
  readonly handles: ReadonlyArray<CoreEventType>
  /** Event types it may emit: in a run's log, these are decision events, re-derived on replay. */
  readonly emits: ReadonlyArray<CoreEventType>
  readonly initial: S
  // Method syntax on purpose: it is bivariant, so a typed decider fits in the registry's list.
  /**
   * Events it may decide at the same time as the ones queued next to them (rollout jobs):
   * their decisions must not depend on each other. The driver still appends them in
   * queue order, so the log is the same whatever the scheduling; replay runs them one by one.
   */
  readonly concurrent?: (event: CoreEvent) => boolean
  /** Folds every event of the run, in log order, before `decide` sees it. */
  evolve(state: S, event: CoreEvent): S
  decide(state: S, event: CoreEvent): Effect.Effect<ReadonlyArray<Decision>, E, R>
}

export type AnyDecider = Decider<any, any, any>

/** The `evolve` of every stateless decider: one function, so they share one state that is never folded. */
const keepState = <S>(s: S): S => s

/** A decider with a stateless default: `initial` null and `evolve` the identity. */
export const defineDecider = <S = null, E = never, R extends DecisionServices = never>(
  d: Omit<Decider<S, E, R>, "initial" | "evolve"> & Partial<Pick<Decider<S, E, R>, "initial" | "evolve">>
): Decider<S, E, R> => ({
  initial: null as S,
  evolve: keepState,
  ...d
})

/** What a decider fails with: the error channel of its `decide`. */
export type ErrorOf<D> = D extends { decide(state: any, event: CoreEvent): Effect.Effect<any, infer E, any> } ? E : never

/**
 * `E`, the union of its deciders' errors, is carried only in the type: the driver's decide
 * failures are then those tagged errors, not `unknown`.
 */
export interface DeciderRegistry<out E = unknown> {
  /** Phantom: the union of the deciders' errors. */
  readonly _E?: () => E
  readonly deciders: ReadonlyArray<AnyDecider>
  /** Every type some decider emits: the decision events of a log. */
  readonly emits: ReadonlySet<string>
  /** The deciders that react to events of this type, in registration order. */
  handling(type: string): ReadonlyArray<AnyDecider>
}

/** A registry; throws on a duplicate name, which is a programming error. */
export const makeDeciderRegistry = <const Ds extends ReadonlyArray<AnyDecider>>(deciders: Ds): DeciderRegistry<ErrorOf<Ds[number]>> => {
  const names = new Set<string>()
  const byType = new Map<string, Array<AnyDecider>>()
  for (const d of deciders) {
    if (names.has(d.name)) throw new Error(`decider ${d.name} is registered twice`)
    names.add(d.name)
    for (const t of d.handles) byType.set(t, [...(byType.get(t) ?? []), d])
  }
  return {
    deciders,
    emits: new Set(deciders.flatMap((d) => d.emits)),
    handling: (type) => byType.get(type) ?? []
  }
}

/** The registry with `extra` deciders added (a test's, or a what-if variant replacing one by name). */
export const withDeciders = <E, const Ds extends ReadonlyArray<AnyDecider>>(
  registry: DeciderRegistry<E>,
  extra: Ds
): DeciderRegistry<E | ErrorOf<Ds[number]>> => {
  const replaced = new Set(extra.map((d) => d.name))
  return makeDeciderRegistry([...registry.deciders.filter((d) => !replaced.has(d.name)), ...extra])
}

/** Every decider's state as events are folded, in log order. */
export interface DeciderStates {
  fold(event: CoreEvent): void
  /** The decider's state as of the last event folded. */
  of(decider: AnyDecider): unknown
}

/**
 * The registry's decider states. Deciders with the same `evolve` and `initial` share one
 * state, folded once per event: the pipeline's run deciders all fold one run state, and
 * folding it once per decider cost as many copies of its maps on every event. Sharing
 * changes no decision, because a state is a value: `evolve` returns a new one and a
 * decider only reads the state it is given.
 */
export const deciderStates = (registry: DeciderRegistry<unknown>): DeciderStates => {
  // Each slot folds with the first of its deciders (the others' evolve is the same function).
  const slots: Array<{ readonly owner: AnyDecider; state: unknown }> = []
  const slotOf = new Map<string, { state: unknown }>()
  for (const d of registry.deciders) {
    let slot = slots.find((x) => x.owner.evolve === d.evolve && x.owner.initial === d.initial)
    if (slot === undefined) slots.push((slot = { owner: d, state: d.initial }))
    slotOf.set(d.name, slot)
  }
  const folded = slots.filter((x) => x.owner.evolve !== keepState)
  return {
    fold: (event) => {
      for (const slot of folded) slot.state = slot.owner.evolve(slot.state, event)
    },
    of: (decider) => {
      const slot = slotOf.get(decider.name)
      if (slot === undefined) throw new Error(`decider ${decider.name} is not in the registry`)
      return slot.state
    }
  }
}
