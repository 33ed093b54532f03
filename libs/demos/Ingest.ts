/**
 * Writing demos to the log: blobs into the blob store FIRST, then ONE commit with
 * `DemoIngested` on `ws.demo.<demoId>` — so a failed blob put leaves no event, and an
 * event never points at a missing blob. Both writes skip when the identical event is
 * already the last of its stream (re-ingesting is a no-op).
 */
import { DateTime, Effect, Stream } from "effect"
import { BlobStore } from "@core/blobstore"
import { canonicalJson, DemoIngested, DemoRejected, digest, makeEvent, sha256, workspaceStream } from "@core/events"
import type { CoreEvent } from "@core/events"
import { EventStore } from "@core/eventstore"
import type { DemoFileError } from "./Format.ts"
import type { LoadedDemo } from "./Loader.ts"

export type WriteOutcome = "written" | "unchanged"

/** Appends `data` as one event unless the stream's last event is the same type with identical data. */
const appendIfChanged = <D extends typeof DemoIngested | typeof DemoRejected>(definition: D, stream: string, data: D["data"]["Type"]) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const history = yield* store.readStream(stream)
    const last = history.at(-1)
    if (last !== undefined && last.event.type === definition.type && canonicalJson(last.event.data) === canonicalJson(data)) return "unchanged" as WriteOutcome
    const revision = last?.position ?? 0
    const recordedAt = DateTime.formatIso(yield* DateTime.now)
    // The id depends on the content and the revision it follows, so A→B→A is three distinct events.
    const event = makeEvent<D>(definition, { stream, runId: null, causationId: digest({ data, after: revision }), ordinal: 0, recordedAt, data }) as CoreEvent
    yield* store.append(stream, [event], { expectedRevision: revision })
    return "written" as WriteOutcome
  })

/** The stream of a demo. */
export const demoStream = (demoId: string): string => workspaceStream("demo", demoId)

/** The stream a rejection of `file` goes to: one per file path, whatever the file claimed to be. */
export const rejectedStream = (file: string): string => workspaceStream("demo", `rejected-${sha256(file)}`)

/** Stores the demo's blobs, then its one DemoIngested (unless identical to the stream's last event). */
export const ingestDemo = (demo: LoadedDemo, sourceRef: string) =>
  Effect.gen(function* () {
    const blobs = yield* BlobStore
    for (const b of demo.blobs) {
      const hash = yield* blobs.put(b.bytes)
      if (hash !== b.hash) return yield* Effect.die(new Error(`blob store named ${b.name} ${hash}, expected ${b.hash}`))
    }
    const data: typeof DemoIngested.data.Type = {
      demoId: demo.demoId,
      taskId: demo.taskId,
      source: { kind: "file", ref: sourceRef },
      steps: demo.steps,
      contentDigest: demo.contentDigest
    }
    return yield* appendIfChanged(DemoIngested, demoStream(demo.demoId), data)
  })

/** Records why a demo file was refused (unless the same rejection is already the last of its stream). */
export const rejectDemo = (error: DemoFileError, sourceRef: string) =>
  appendIfChanged(DemoRejected, rejectedStream(sourceRef), {
    demoId: error.demoId,
    source: { kind: "file", ref: sourceRef },
    reason: error.reason,
    line: null,
    stepIndex: error.stepIndex
  })

/** Ingested demos by task id (demo ids, sorted), from the last DemoIngested of every `ws.demo.*` stream. */
export const demosByTask = Effect.gen(function* () {
  const store = yield* EventStore
  const latest = new Map<string, { demoId: string; taskId: string }>()
  yield* store.readAll({ filter: "ws.demo.*" }).pipe(
    Stream.runForEach((r) =>
      Effect.sync(() => {
        if (r.event.type !== "DemoIngested") return
        const data = r.event.data as typeof DemoIngested.data.Type
        latest.set(r.event.stream, { demoId: data.demoId, taskId: data.taskId })
      })
    )
  )
  const byTask = new Map<string, Array<string>>()
  for (const { demoId, taskId } of latest.values()) byTask.set(taskId, [...(byTask.get(taskId) ?? []), demoId].sort())
  return byTask as ReadonlyMap<string, ReadonlyArray<string>>
})
