/**
 * The policies trainers outside a run publish, as a decider sees them. A run that takes its
 * policy from a trainer following the dataset stream (`run --policy learned --trainer NAME`)
 * asks, at each sealed round, for the latest version that trainer has published. What it is
 * told depends on when the trainer got there, so it is a nondeterministic input: the live
 * layer (@core/trainer) reads the trainer's stream and checks the version's weights, and
 * the recorded layer here answers from the PolicyTrained the run wrote for that round, whose
 * `published` key names the version it took.
 *
 * A Reference rather than a required service: only that kind of run asks, so the other
 * runs' layers need not provide it, and one that asks with nothing provided is told why.
 *
 * @example
 * const { stream, latest } = yield* (yield* PublishedPolicies).latest({ causationId: sealed.id, trainer: "nightly" })
 * latest?.data.weights // the weights blob of the version the round acts with; null: nothing published yet
 */
import { Context, Effect, Layer, Schema } from "effect"
import type { CoreEvent, DataOf, PolicyTrained } from "@core/events"

/** One version a trainer published: its PolicyTrained as its stream holds it. */
export interface PublishedVersion {
  /** Its position among the stream's PolicyTrained events, from 1. */
  readonly version: number
  readonly eventId: string
  readonly data: DataOf<typeof PolicyTrained>
}

export interface PublishedAnswer {
  /** The trainer's stream. */
  readonly stream: string
  /** Its latest version; null when it has published none. */
  readonly latest: PublishedVersion | null
}

export interface PublishedRequest {
  /** The event whose handling asks (the round's DatasetSealed): replay finds the answer by it. */
  readonly causationId: string
  /** The trainer's name (its consumer's, `train --follow --consumer NAME`). */
  readonly trainer: string
}

/** The trainer's latest version cannot be used: its stream is unreadable, or its weights are missing or not a model. */
export class PublishedPolicyRefused extends Schema.TaggedError<PublishedPolicyRefused>()("PublishedPolicyRefused", {
  trainer: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `trainer ${this.trainer}: ${this.reason}`
  }
}

/** Replay asked for a published version the log has no PolicyTrained of. */
export class PublishedPolicyNotRecorded extends Schema.TaggedError<PublishedPolicyNotRecorded>()("PublishedPolicyNotRecorded", {
  causationId: Schema.String,
  trainer: Schema.String
}) {
  override get message() {
    return `no PolicyTrained recorded for trainer ${this.trainer}'s version taken for event ${this.causationId.slice(0, 12)}`
  }
}

export interface PublishedPoliciesShape {
  latest(request: PublishedRequest): Effect.Effect<PublishedAnswer, PublishedPolicyRefused | PublishedPolicyNotRecorded>
}

export const PublishedPolicies = Context.Reference<PublishedPoliciesShape>("@core/engine/PublishedPolicies", {
  defaultValue: () => ({
    latest: ({ trainer }) => Effect.fail(new PublishedPolicyRefused({ trainer, reason: "no trainer's stream is reachable from here" }))
  })
})

type PolicyTrainedEvent = Extract<CoreEvent, { type: "PolicyTrained" }>

/** What a run's PolicyTrained recorded of the version it took, as the live layer answered it. */
const answerOf = (e: PolicyTrainedEvent): PublishedAnswer | null => {
  const { published, round: _, ...data } = e.data
  if (published === undefined) return null
  if (published.version === 0 || published.eventId === undefined) return { stream: published.stream, latest: null }
  // The version's own round is its number among the trainer's versions.
  return {
    stream: published.stream,
    latest: { version: published.version, eventId: published.eventId, data: { ...data, round: published.version } }
  }
}

/** PublishedPolicies answering from the log's PolicyTrained events, by the event that asked. */
export const recordedPublished = (events: ReadonlyArray<CoreEvent>): Layer.Layer<never> => {
  const taken = new Map<string, PolicyTrainedEvent>()
  for (const e of events)
    if (e.type === "PolicyTrained" && e.data.published !== undefined && e.causationId !== null) taken.set(e.causationId, e)
  return Layer.succeed(PublishedPolicies, {
    latest: ({ causationId, trainer }) => {
      const e = taken.get(causationId)
      const answer = e === undefined ? null : answerOf(e)
      return answer === null ? Effect.fail(new PublishedPolicyNotRecorded({ causationId, trainer })) : Effect.succeed(answer)
    }
  })
}

/** A resumed run: the versions its log recorded as it took them, the live layer's answer for the rest. */
export const resumePublished = <E, R>(events: ReadonlyArray<CoreEvent>, live: Layer.Layer<never, E, R>): Layer.Layer<never, E, R> =>
  Layer.effect(
    PublishedPolicies,
    Effect.gen(function* () {
      const recorded = yield* Effect.provide(PublishedPolicies.use(Effect.succeed), recordedPublished(events))
      const liveOne = yield* Effect.provide(PublishedPolicies.use(Effect.succeed), live)
      return {
        latest: (request: PublishedRequest) =>
          recorded.latest(request).pipe(Effect.catchTag("PublishedPolicyNotRecorded", () => liveOne.latest(request)))
      }
    })
  )
