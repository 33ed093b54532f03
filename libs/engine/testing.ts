/**
 * Decider specifications in given / when / then form: the `given` events are folded with
 * the decider's `evolve` from `initial`, then the `when` event is folded and decided — as
 * the driver and replay do — and the decisions checked (`then`), or their absence
 * (`thenNothing`), or the failure (`thenFails`).
 *
 * `decide` runs with the services replay gives a decider: model answers and observations
 * recorded, not live — model answers given by the spec (`answering`, per purpose in call
 * order; or ModelCalled events through `recorded`), observations served from the
 * TrajectoryRecorded events among the given and `recorded` events (or an in-memory
 * environment through `observing`) — the seed of the given RunStarted, and the real blob
 * store and the sandbox the kit names. Blobs the kit's event builders made (`pendingBlobs`) are
 * stored before deciding. End every spec with a `then` form (or `run`): like a promise's,
 * `then` is what runs it.
 *
 * @example
 * const { spec, dispose } = deciderSpecs("rounds", { sandbox: labelSandbox, seed: SEED, pendingBlobs })
 * afterAll(dispose)
 * test("given every inference job done, when the last completes, then round 0 starts and completes", () =>
 *   spec(rounds)
 *     .given([runStarted({ tasks: ["t"], demos: ["d"] }), taskRegistered(task), demo, inferJob(demo)])
 *     .when(jobCompleted({ jobId: "infer-d" }, { stream }))
 *     .then((events) => expect(events.map((e) => e.type)).toEqual(["RoundStarted", "RoundCompleted"])))
 */
import { expect } from "bun:test"
import { Cause, Effect, Exit, Layer, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BlobStore, DirectoryBlobStore } from "@core/blobstore"
import type { CoreEvent, CoreEventType } from "@core/events"
import { Sandbox } from "@core/sandbox"
import {
  ModelCallFailed,
  ModelCallNotRecorded,
  Models,
  Randomness,
  recordedModels,
  recordedObservations,
  recordedPublished,
  stamp
} from "./mod.ts"
import type { Decider, Decision, DecisionServices, ModelAnswer, ModelRequest, Observations } from "./mod.ts"

/** What a package's specs share: the sandbox its deciders run code in, its default seed, the blobs its event builders made. */
export interface SpecKit {
  readonly sandbox: () => Layer.Layer<Sandbox, unknown>
  /** The seed when the given events hold no RunStarted. */
  readonly seed: string
  /** Blobs made but not yet stored (hash → bytes): stored before each decision. */
  readonly pendingBlobs?: () => ReadonlyMap<string, Uint8Array>
}

/** Model answers by purpose ("key-steps", "lf-synthesis", "relabel"…), in call order; null: the call failed. */
export type ModelScript = Readonly<Record<string, ReadonlyArray<string | null>>>

export interface Outcome<S> {
  /** The decisions as the log would hold them, stamped with the `when` event's run and time (as replay stamps them). */
  readonly events: ReadonlyArray<CoreEvent>
  readonly decisions: ReadonlyArray<Decision>
  /** The model requests the decider made, in order. */
  readonly modelCalls: ReadonlyArray<ModelRequest>
  /** The state `decide` saw: the given events and the `when` event folded. */
  readonly state: S
}

export interface When<S> {
  /** Model answers for this decision (instead of the ModelCalled events among the given and recorded ones). */
  answering(script: ModelScript): When<S>
  /** Inputs the log holds after the cause (ModelCalled, TrajectoryRecorded): served, not folded. */
  recorded(events: ReadonlyArray<CoreEvent>): When<S>
  /** An environment to act in instead of the recorded observations (an in-memory site). */
  observing(layer: Layer.Layer<Observations>): When<S>
  /** Trainers' published versions as this layer tells them (a live PublishedPolicies), instead of the recorded ones. */
  publishing(layer: Layer.Layer<never>): When<S>
  /** Decides, for checks the `then` forms do not cover. */
  run(): Promise<Outcome<S>>
  /** `expected` decisions exactly, or a check of the stamped events. */
  then(expected: ReadonlyArray<Decision> | ((events: ReadonlyArray<CoreEvent>, outcome: Outcome<S>) => void | Promise<void>)): Promise<void>
  /** The decider decides nothing. */
  thenNothing(): Promise<void>
  /** The decider fails: with an error of this tag, or one the check accepts. */
  thenFails(expected: string | ((error: unknown) => void)): Promise<void>
}

export interface Given<S> {
  when(event: CoreEvent): When<S>
}

type Events = ReadonlyArray<CoreEvent | ReadonlyArray<CoreEvent>>

const flat = (events: Events): ReadonlyArray<CoreEvent> =>
  events.flatMap((e) => ("type" in e ? [e as CoreEvent] : (e as ReadonlyArray<CoreEvent>)))

/** Answers from the script; a call it has no answer for was never recorded. */
const scriptedModels = (script: ModelScript, calls: Array<ModelRequest>) => {
  const served = new Map<string, number>()
  return Layer.succeed(
    Models,
    Models.of({
      complete: (request) =>
        Effect.suspend((): Effect.Effect<ModelAnswer, ModelCallFailed | ModelCallNotRecorded> => {
          calls.push(request)
          const n = served.get(request.purpose) ?? 0
          served.set(request.purpose, n + 1)
          const answer = script[request.purpose]?.[n]
          if (answer === undefined)
            return Effect.fail(new ModelCallNotRecorded({ causationId: request.causationId, callIndex: request.callIndex }))
          if (answer === null)
            return Effect.fail(
              new ModelCallFailed({ causationId: request.causationId, callIndex: request.callIndex, reason: "recorded as failed" })
            )
          return Effect.succeed({ text: answer, finishReason: "stop", usage: { inputTokens: null, outputTokens: null } })
        })
    })
  )
}

/** The recorded Models layer, with each request kept for the spec. */
const watched = (events: ReadonlyArray<CoreEvent>, calls: Array<ModelRequest>) =>
  Layer.effect(
    Models,
    Effect.map(Effect.service(Models), (recorded) =>
      Models.of({
        complete: (request) => Effect.suspend(() => (calls.push(request), recorded.complete(request)))
      })
    )
  ).pipe(Layer.provide(recordedModels(events)))

/**
 * The real label-function sandbox, started on its first use: it takes a second to start,
 * and half the deciders never run a label function.
 */
const lazySandbox = (sandbox: SpecKit["sandbox"]) => {
  let real: ManagedRuntime.ManagedRuntime<Sandbox, unknown> | null = null
  const use = <A>(f: (s: Sandbox["Service"]) => Effect.Effect<A>) =>
    Effect.promise(() => (real ??= ManagedRuntime.make(sandbox())).runPromise(Effect.flatMap(Effect.service(Sandbox), f)))
  const layer = Layer.succeed(
    Sandbox,
    Sandbox.of({ evaluate: (r) => use((s) => s.evaluate(r)), evaluateBatch: (rs) => use((s) => s.evaluateBatch(rs)) })
  )
  return { layer, dispose: () => real?.dispose() }
}

/** A spec kit over its own runtime (a blob store in a temp dir, the sandbox); `dispose` after the file. */
export const deciderSpecs = (name: string, kit: SpecKit) => {
  const dir = mkdtempSync(join(tmpdir(), `core-spec-${name}-`))
  const sandbox = lazySandbox(kit.sandbox)
  const rt = ManagedRuntime.make(Layer.mergeAll(DirectoryBlobStore.layer({ dir: join(dir, "blobs") }), sandbox.layer))
  const dispose = async () => {
    await rt.dispose()
    await sandbox.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
  const stored = new Set<string>()
  const storeBlobs = Effect.gen(function* () {
    const blobs = yield* BlobStore
    for (const [hash, bytes] of kit.pendingBlobs?.() ?? []) {
      if (stored.has(hash)) continue
      yield* blobs.put(bytes)
      stored.add(hash)
    }
  })

  const spec = <S, E, R extends DecisionServices>(decider: Decider<S, E, R>) => ({
    given: (given: Events): Given<S> => ({
      when: (cause: CoreEvent) => {
        const make = (o: {
          script?: ModelScript
          recorded: ReadonlyArray<CoreEvent>
          observing?: Layer.Layer<Observations>
          publishing?: Layer.Layer<never>
        }): When<S> => {
          const run = async (): Promise<Exit.Exit<Outcome<S>, unknown>> => {
            const log = [...flat(given), cause]
            const state = log.reduce((s, e) => decider.evolve(s, e), decider.initial)
            const inputs = [...log, ...o.recorded]
            const started = log.find((e) => e.type === "RunStarted")
            const calls: Array<ModelRequest> = []
            const services = Layer.mergeAll(
              o.script === undefined ? watched(inputs, calls) : scriptedModels(o.script, calls),
              o.observing ?? recordedObservations(inputs),
              o.publishing ?? recordedPublished(inputs),
              Randomness.layer(started?.type === "RunStarted" ? started.data.seed : kit.seed)
            )
            const decide = Effect.gen(function* () {
              yield* storeBlobs
              const decisions = yield* decider.decide(state, cause)
              const events = decisions.map((d) => stamp(d, cause.runId, cause.recordedAt))
              return { events, decisions, modelCalls: calls, state } satisfies Outcome<S>
            })
            // The runtime holds the rest of DecisionServices (blob store, sandbox); R is only known to be among them.
            return rt.runPromise(
              Effect.exit(decide.pipe(Effect.provide(services))) as unknown as Effect.Effect<Exit.Exit<Outcome<S>, unknown>>
            )
          }
          const outcome = async () => {
            const exit = await run()
            if (Exit.isSuccess(exit)) return exit.value
            throw Cause.squash(exit.cause)
          }
          return {
            answering: (script) => make({ ...o, script }),
            recorded: (events) => make({ ...o, recorded: [...o.recorded, ...events] }),
            observing: (layer) => make({ ...o, observing: layer }),
            publishing: (layer) => make({ ...o, publishing: layer }),
            run: outcome,
            then: async (expected) => {
              const out = await outcome()
              if (typeof expected === "function") await expected(out.events, out)
              else expect(out.decisions).toEqual(expected)
            },
            thenNothing: async () => {
              const out = await outcome()
              expect(out.events.map((e) => e.type)).toEqual([])
            },
            thenFails: async (expected) => {
              const exit = await run()
              if (Exit.isSuccess(exit))
                throw new Error(
                  `expected ${decider.name} to fail, but it decided ${exit.value.events.map((e) => e.type).join(", ") || "nothing"}`
                )
              const failure = exit.cause.reasons.find(Cause.isFailReason)
              if (failure === undefined) throw Cause.squash(exit.cause)
              if (typeof expected === "function") expected(failure.error)
              else expect((failure.error as { _tag?: string })._tag).toBe(expected)
            }
          }
        }
        return make({ recorded: [] })
      }
    })
  })

  return { spec, dispose }
}

/** The data of the decided events of one type, typed. */
export const dataOf = <T extends CoreEventType>(events: ReadonlyArray<CoreEvent>, type: T) => {
  const out: Array<unknown> = []
  for (const e of events) if (e.type === type) out.push(e.data)
  return out as ReadonlyArray<Extract<CoreEvent, { type: T }>["data"]>
}

/** The decided events' types, in order: the shape of a decision at a glance. */
export const typesOf = (events: ReadonlyArray<CoreEvent>): ReadonlyArray<string> => events.map((e) => e.type)
