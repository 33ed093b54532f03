/**
 * Writing demos to the log: blobs into the blob store FIRST, then ONE commit with
 * `DemoIngested` on `ws.demo.<demoId>` — so a failed blob put leaves no event, and an
 * event never points at a missing blob. Both writes skip when the identical event is
 * already the last of its stream (re-ingesting is a no-op).
 */
import { Cause, DateTime, Effect, Stream } from "effect"
import { BlobStore } from "@core/blobstore"
import { canonicalJson, DemoIngested, DemoRejected, digest, makeEvent, sha256, workspaceStream } from "@core/events"
import type { CoreEvent } from "@core/events"
import { EventStore } from "@core/eventstore"
import { oneLine } from "./Format.ts"
import type { DemoFileError } from "./Format.ts"
import { loadDemo } from "./Loader.ts"
import type { LoadedDemo, LoadOptions } from "./Loader.ts"

export type WriteOutcome = "written" | "unchanged"

/** Appends `data` as one event unless the stream's last event is the same type with identical data. */
const appendIfChanged = <D extends typeof DemoIngested | typeof DemoRejected>(definition: D, stream: string, data: D["data"]["Type"]) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const history = yield* store.readStream(stream)
    const last = history.at(-1)
    if (last !== undefined && last.event.type === definition.type && canonicalJson(last.event.data) === canonicalJson(data))
      return "unchanged" as WriteOutcome
    const revision = last?.position ?? 0
    const recordedAt = DateTime.formatIso(yield* DateTime.now)
    // The id depends on the content and the revision it follows, so A→B→A is three distinct events.
    const event = makeEvent<D>(definition, {
      stream,
      runId: null,
      causationId: digest({ data, after: revision }),
      ordinal: 0,
      recordedAt,
      data
    }) as CoreEvent
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
      contentDigest: demo.contentDigest,
      // Only a version 2 demo has them: a version 1 demo's event stays what it always was, so re-ingesting it is "unchanged".
      ...(demo.initial === null ? {} : { platform: demo.platform, initial: demo.initial })
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

export interface IngestSummary {
  readonly ingested: number
  readonly skipped: number
  /** Files that are not valid demos, each recorded as a DemoRejected. */
  readonly rejected: ReadonlyArray<{ readonly file: string; readonly reason: string }>
  /** Valid or not, files that could not be written (a store error, another writer first): nothing recorded, worth trying again. */
  readonly failed: ReadonlyArray<{ readonly file: string; readonly error: string }>
}

const ingestOne = (file: string, options: LoadOptions) =>
  Effect.gen(function* () {
    const loaded = yield* Effect.result(loadDemo(file, options))
    if (loaded._tag === "Failure") {
      yield* rejectDemo(loaded.failure, file)
      return { kind: "rejected", reason: loaded.failure.reason } as const
    }
    return { kind: yield* ingestDemo(loaded.success, file), demo: loaded.success } as const
  })

/**
 * Loads and ingests each file in turn, `log`ging one line per file. One file's failure —
 * even a defect — is that file's line in the summary: the files after it are still tried.
 */
export const ingestFiles = (files: ReadonlyArray<string>, options: LoadOptions, log: (line: string) => void) =>
  Effect.gen(function* () {
    let ingested = 0
    let skipped = 0
    const rejected: Array<{ file: string; reason: string }> = []
    const failed: Array<{ file: string; error: string }> = []
    for (const [i, file] of files.entries()) {
      const at = `${i + 1}/${files.length} ${oneLine(file, 1000)}`
      const exit = yield* Effect.exit(ingestOne(file, options))
      if (exit._tag === "Failure") {
        const e = Cause.squash(exit.cause)
        const error = oneLine(e instanceof Error ? e.message : String(e), 500)
        failed.push({ file, error })
        log(`${at} failed: ${error}`)
        continue
      }
      const r = exit.value
      if (r.kind === "rejected") {
        rejected.push({ file, reason: r.reason })
        log(`${at} rejected: ${r.reason}`)
        continue
      }
      if (r.kind === "written") ingested++
      else skipped++
      const d = r.demo
      log(
        `${at} ${d.demoId} (${d.taskId}, ${d.steps.length} steps, ${d.blobs.length} blobs) ${r.kind === "written" ? "ingested" : "unchanged"}`
      )
    }
    return { ingested, skipped, rejected, failed } satisfies IngestSummary
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
