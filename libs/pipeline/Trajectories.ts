/**
 * Demos and recorded trajectories as the read-only LF trajectories label functions see
 * (libs/domain LfTrajectory): their element lists read from the BlobStore and checked.
 *
 * @example
 * const t = yield* loadRecordedTrajectory(trajectoryRecorded.data)
 */
import { Effect, Schema } from "effect"
import { BlobStore } from "@core/blobstore"
import { fromDemoSteps, fromRecordedSteps, lfElements } from "@core/domain"
import type { ElementsLookup, LfElement } from "@core/domain"
import type { DemoData, TrajectoryData } from "./RunState.ts"

/** An observation's elements blob that does not hold JSON: the blob store holds something no recorder wrote. */
export class ElementsUnreadable extends Schema.TaggedError<ElementsUnreadable>()("ElementsUnreadable", {
  hash: Schema.String
}) {
  override get message() {
    return `elements blob ${this.hash.slice(0, 12)} is not JSON`
  }
}

/** Reads each distinct elements blob once. */
export const elementsLookup = (hashes: Iterable<string | null>) =>
  Effect.gen(function* () {
    const blobs = yield* BlobStore
    const elements = new Map<string, ReadonlyArray<LfElement> | null>()
    for (const hash of hashes) {
      if (hash === null || elements.has(hash)) continue
      const bytes = yield* blobs.get(hash)
      const parsed = yield* Effect.try({
        try: () => JSON.parse(new TextDecoder().decode(bytes)) as unknown,
        catch: () => new ElementsUnreadable({ hash })
      })
      elements.set(hash, lfElements(parsed))
    }
    const lookup: ElementsLookup = (h) => elements.get(h) ?? null
    return lookup
  })

/** A demo as the LF trajectory its label functions are validated on. */
export const loadDemoTrajectory = (demo: DemoData) =>
  Effect.map(elementsLookup(demo.steps.map((s) => s.observation.elements)), (lookup) => fromDemoSteps(demo.steps, lookup))

/** A rollout as the LF trajectory its verdict is computed on; `hashRouting` is the run's (RunConfig). */
export const loadRecordedTrajectory = (t: TrajectoryData, hashRouting = false) =>
  Effect.map(elementsLookup([t.initial.elements, ...t.steps.map((s) => s.observation.elements)]), (lookup) =>
    fromRecordedSteps(t.initial, t.steps, lookup, hashRouting)
  )
