/**
 * The live PublishedPolicies (@core/engine): the latest version a follow trainer published
 * on `trainer.follow.<name>`, checked before a run acts with it. The stream and the blob
 * store are open to anyone who reaches the NATS server, so a version is hostile until its
 * weights blob is there, hashes to its name and reads back as a model of a learner version
 * this code knows, the one the version names; any other is refused in one line, and the run stops
 * rather than act with something it cannot vouch for.
 *
 * @example
 * const layer = publishedPolicies // needs EventStore and BlobStore
 * const { latest } = yield* (yield* PublishedPolicies).latest({ causationId, trainer: "nightly" })
 */
import { Effect, Layer, Result } from "effect"
import { BlobStore } from "@core/blobstore"
import { isToken, PublishedPolicies, PublishedPolicyRefused } from "@core/engine"
import type { PublishedAnswer } from "@core/engine"
import { EventStore } from "@core/eventstore"
import { learnedModelFromJson, TRAINER_NAMES } from "@core/learner"
import { trainerStream } from "./TrainerStream.ts"

/** The trainer's latest version, its weights checked: what a run takes when it seals a round. */
export const latestPublished = (trainer: string) =>
  Effect.gen(function* () {
    const refuse = (reason: string) => new PublishedPolicyRefused({ trainer, reason })
    if (!isToken(trainer)) return yield* refuse("a trainer's name may only hold letters, digits, '-' and '_'")
    const stream = trainerStream(trainer)
    const read = yield* (yield* EventStore)
      .readStream(stream)
      .pipe(Effect.mapError((e) => refuse(`${stream} cannot be read: ${e.message}`)))
    const versions = read.filter((r) => r.event.type === "PolicyTrained")
    const last = versions.at(-1)
    if (last === undefined || last.event.type !== "PolicyTrained") return { stream, latest: null } satisfies PublishedAnswer
    const data = last.event.data
    const version = versions.length
    if (!TRAINER_NAMES.has(data.trainer))
      return yield* refuse(
        `version ${version} was trained by ${JSON.stringify(data.trainer)}, not a learner this code knows (${[...TRAINER_NAMES].join(", ")})`
      )
    if (data.weights === undefined) return yield* refuse(`version ${version} names no weights`)
    const bytes = yield* (yield* BlobStore)
      .get(data.weights)
      .pipe(Effect.mapError((e) => refuse(`version ${version}'s weights ${data.weights!.slice(0, 12)} cannot be read: ${e.message}`)))
    // The store's get checked the bytes against their name (BlobCorrupt otherwise, refused above).
    const model = Result.try(() => learnedModelFromJson(new TextDecoder().decode(bytes)))
    if (Result.isFailure(model)) return yield* refuse(`version ${version}'s weights are refused: ${(model.failure as Error).message}`)
    if (model.success.version !== data.trainer)
      return yield* refuse(`version ${version} says ${data.trainer} but its weights are a ${model.success.version} model`)
    return { stream, latest: { version, eventId: last.event.id, data } } satisfies PublishedAnswer
  })

/** PublishedPolicies reading the trainers' streams in the run's store. */
export const publishedPolicies: Layer.Layer<never, never, EventStore | BlobStore> = Layer.effect(
  PublishedPolicies,
  Effect.gen(function* () {
    const context = yield* Effect.context<EventStore | BlobStore>()
    return { latest: ({ trainer }) => latestPublished(trainer).pipe(Effect.provide(context)) }
  })
)
