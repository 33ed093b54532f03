/**
 * The projector tests' log: the synthetic generator the benchmark uses (a few thousand
 * events at these shapes), plus an in-order append that tracks revisions as a writer would.
 */
import { Effect } from "effect"
import { EventStore } from "@core/eventstore"
import type { Commit } from "../synthetic/Generate.ts"

export { eventCount, generateLog } from "../synthetic/Generate.ts"
export type { Commit, LogShape } from "../synthetic/Generate.ts"

/** Appends commits in order, tracking each stream's revision as a writer would. */
export const appendAll = (commits: ReadonlyArray<Commit>, revisions: Map<string, number> = new Map()) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    for (const c of commits) {
      const { revision } = yield* store.append(c.stream, c.events, { expectedRevision: revisions.get(c.stream) ?? 0 })
      revisions.set(c.stream, revision)
    }
  })
