/**
 * The live `Observations` layer: rollouts act in real environments (env-web today). Each
 * episode takes one environment from a pool for its whole life — `reset` waits for a free
 * one, `end` gives it back — so N environments run N rollouts at once. The task an episode
 * starts from is read off its trajectory id (`taskOfTrajectoryId`).
 *
 * What is recorded holds no instance: a page's URL is its path and query (and fragment,
 * for a hash-routed app), the instance's origin in a message is `{base}` (RecordedUrl.ts in
 * @core/domain), as its blobs write it. The instance is the origin of the episode's first
 * page. Policies and deciders read the same recorded form, live and in replay.
 *
 * Blobs are read back from the BlobStore by hash rather than re-encoded from memory, so a
 * decider sees live exactly the bytes replay will fetch. A broken platform (InfraError)
 * is `EnvironmentFailed`: the rollout restarts the episode. The blob store being unavailable
 * is not: it fails the rollout, so the episode is never recorded and a resumed run plays it.
 *
 * @example
 * const layer = liveObservations({ environments: [env1, env2], taskOf: (id) => tasks.get(id) })
 */
import { Effect, Layer, Queue } from "effect"
import { BlobStore, BlobStoreError } from "@core/blobstore"
import type { EnvironmentShape, EnvTask, FullObservation } from "@core/environment"
import type { Action, Observation } from "@core/events"
import { instanceOrigin, recordedUrl, withBase } from "@core/domain"
import { EnvironmentFailed, ObservationNotRecorded, Observations } from "@core/engine"
import type { Observed } from "@core/engine"
import { taskOfTrajectoryId } from "./Rollout.ts"

export interface EpisodeEnd {
  readonly trajectoryId: string
  readonly task: EnvTask
  /** The last observation (null when the reset itself failed). */
  readonly last: FullObservation | null
  /** The actions taken, in order. */
  readonly actions: ReadonlyArray<Action>
}

export interface LiveObservationsOptions {
  readonly environments: ReadonlyArray<EnvironmentShape>
  readonly taskOf: (taskId: string) => EnvTask | undefined
  /**
   * Told when an episode ends, before its environment is reused: where evaluation reads a
   * site's ground truth (measurement only: it never becomes CORE's labels or any decision).
   */
  readonly onEnd?: (end: EpisodeEnd) => Effect.Effect<void>
  /** Told of every step taken (progress). */
  readonly onStep?: (trajectoryId: string, step: number) => void
}

interface Episode {
  readonly env: EnvironmentShape
  readonly task: EnvTask
  readonly attempt: number
  /** The instance's origin (its first page's), which nothing recorded names. */
  base: string | null
  last: FullObservation | null
  readonly actions: Array<Action>
}

export const liveObservations = (options: LiveObservationsOptions): Layer.Layer<Observations, never, BlobStore> =>
  Layer.effect(
    Observations,
    Effect.gen(function* () {
      const blobs = yield* BlobStore
      const free = yield* Queue.unbounded<EnvironmentShape>()
      for (const env of options.environments) yield* Queue.offer(free, env)
      const episodes = new Map<string, Episode>()

      const observed = (trajectoryId: string, episode: Episode, full: Observation) =>
        Effect.gen(function* () {
          const observation: Observation = {
            ...full,
            url: recordedUrl(full.url, episode.base, episode.task.hashRouting === true),
            error: withBase(full.error, episode.base)
          }
          const get = (hash: string | null) => (hash === null ? Effect.succeed(null) : blobs.get(hash))
          const [screenshot, elements, aria] = yield* Effect.all([
            get(observation.screenshot),
            get(observation.elements),
            get(observation.aria)
          ])
          return { observation, screenshot, elements, aria } satisfies Observed
        }).pipe(
          Effect.catchTags({
            BlobNotFound: (e) =>
              Effect.fail(new EnvironmentFailed({ trajectoryId, attempt: episode.attempt, reason: `blob store: ${e.message}` })),
            BlobCorrupt: (e) =>
              Effect.fail(new EnvironmentFailed({ trajectoryId, attempt: episode.attempt, reason: `blob store: ${e.message}` }))
          })
        )

      /**
       * A platform failure restarts the episode. The blob store being unavailable (it already
       * waited out the outage limit) stops the rollout instead: an episode recorded as an
       * infra-error would be kept by `--resume` and stand in the log for good, while one never
       * recorded is simply run again.
       */
      const failed =
        (trajectoryId: string, attempt: number) => (e: { readonly reason: string; readonly storeUnavailable?: boolean | undefined }) =>
          e.storeUnavailable === true
            ? new BlobStoreError({ reason: e.reason.replace(/^blob store: /, "") })
            : new EnvironmentFailed({ trajectoryId, attempt, reason: e.reason })

      const release = (trajectoryId: string) =>
        Effect.gen(function* () {
          const episode = episodes.get(trajectoryId)
          if (episode === undefined) return
          episodes.delete(trajectoryId)
          if (options.onEnd) yield* options.onEnd({ trajectoryId, task: episode.task, last: episode.last, actions: episode.actions })
          yield* episode.env.close()
          yield* Queue.offer(free, episode.env)
        })

      return Observations.of({
        reset: (trajectoryId, attempt = 0) =>
          Effect.gen(function* () {
            const taskId = taskOfTrajectoryId(trajectoryId)
            const task = taskId === null ? undefined : options.taskOf(taskId)
            if (task === undefined) return yield* new ObservationNotRecorded({ trajectoryId, step: -1 })
            yield* release(trajectoryId)
            const env = yield* Queue.take(free)
            const episode: Episode = { env, task, attempt, base: null, last: null, actions: [] }
            episodes.set(trajectoryId, episode)
            const first = yield* env.reset(task).pipe(
              Effect.mapError(failed(trajectoryId, attempt)),
              Effect.tapError(() => release(trajectoryId))
            )
            episode.last = first
            episode.base = instanceOrigin(first.observation.url)
            return yield* observed(trajectoryId, episode, first.observation)
          }),
        act: (trajectoryId, step, action) =>
          Effect.gen(function* () {
            const episode = episodes.get(trajectoryId)
            if (episode === undefined) return yield* new ObservationNotRecorded({ trajectoryId, step })
            const next = yield* episode.env.step(action).pipe(
              Effect.mapError(failed(trajectoryId, episode.attempt)),
              Effect.tapError(() => release(trajectoryId))
            )
            episode.last = next
            episode.actions.push(action)
            options.onStep?.(trajectoryId, step)
            const seen = yield* observed(trajectoryId, episode, next.observation)
            return next.performed === undefined ? seen : { ...seen, performed: next.performed }
          }),
        end: (trajectoryId) => release(trajectoryId)
      })
    })
  )
