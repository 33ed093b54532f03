/**
 * The last part of every platform's observation: store the elements, aria (or hierarchy),
 * screenshot and set-of-marks blobs, build the policy's view, and assemble what
 * TrajectoryRecorded keeps and what the caller holds in memory. One function, so the web,
 * mobile-web and Android environments record the very same shape.
 *
 * @example
 * return yield* storeObservation(blobs, { url, app: null, title, elements, elementsBytes, aria, screenshot,
 *   error, limit, timing, startedAt, done: ep.done, episode: ep.episode })
 */
import { Effect } from "effect"
import type { BlobStore } from "@core/blobstore"
import type { Observation } from "@core/events"
import { InfraError } from "./Environment.ts"
import type { ElementInfo, FullObservation } from "./Environment.ts"
import { policyView } from "./View.ts"

export interface ObservationParts {
  readonly url: string | null
  readonly app: string | null
  readonly title: string | null
  readonly elements: ReadonlyArray<ElementInfo>
  /** The elements blob as the platform writes it (with its viewport and the like). */
  readonly elementsBytes: Uint8Array
  readonly aria: string
  readonly screenshot: Uint8Array | null
  /**
   * The set-of-marks PNG. Undefined when marks were not asked for: the observation then has
   * no `marks` key at all, exactly as before marks existed. Null: asked for, no screenshot.
   */
  readonly marks?: Uint8Array | null
  /** The action's complaint, if any. */
  readonly error: string | null
  /** Elements in the policy view. */
  readonly limit: number
  readonly timing: { readonly actionMs: number; readonly settleMs: number }
  /** `performance.now()` when the observation began, for `timings.observeMs`. */
  readonly startedAt: number
  readonly done: boolean
  readonly episode: string | null
}

const encoder = new TextEncoder()

export const storeObservation = (blobs: BlobStore["Service"], parts: ObservationParts): Effect.Effect<FullObservation, InfraError> =>
  Effect.gen(function* () {
    const put = (bytes: Uint8Array) =>
      blobs.put(bytes).pipe(Effect.mapError((e) => new InfraError({ reason: e.message, storeUnavailable: true })))
    const optional = (bytes: Uint8Array | null | undefined) => (bytes == null ? Effect.succeed(null) : put(bytes))
    const [elements, aria, screenshot, marks] = yield* Effect.all(
      [put(parts.elementsBytes), put(encoder.encode(parts.aria)), optional(parts.screenshot), optional(parts.marks)],
      { concurrency: "unbounded" }
    )
    const view = policyView({ url: parts.url, app: parts.app, title: parts.title, error: parts.error }, parts.elements, parts.limit)
    const observation: Observation = {
      url: parts.url,
      app: parts.app,
      title: parts.title,
      screenshot,
      elements,
      aria,
      truncated: view.truncated,
      error: parts.error,
      ...(parts.marks === undefined ? {} : { marks })
    }
    return {
      observation,
      elements: parts.elements,
      aria: parts.aria,
      screenshot: parts.screenshot,
      ...(parts.marks === undefined ? {} : { marks: parts.marks }),
      view,
      timings: { ...parts.timing, observeMs: Math.round(performance.now() - parts.startedAt) },
      done: parts.done,
      episode: parts.episode
    } satisfies FullObservation
  })
