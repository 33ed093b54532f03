/**
 * A real run's dataset for tests/dataset-formats.test.ts: the replay fixture's embedded store
 * copied to a directory, one round added with screenshots (the fixture's dpo and rollout
 * records have none), and the records read back as the plain `dataset export` lines.
 */
import { Effect, Layer, type Schema, Stream } from "effect"
import { BlobStore, DirectoryBlobStore } from "@core/blobstore"
import { dpoRecord, rolloutRecord, sealOf, sftRecords } from "@core/domain"
import type { DatasetRecord, RecordStep, RecordTrajectory } from "@core/domain"
import { DatasetRecordEmitted, DatasetSealed, makeEvent, runStream } from "@core/events"
import type { Action, CoreEvent } from "@core/events"
import { EmbeddedStore, EventStore } from "@core/eventstore"
import { readFileSync } from "node:fs"
import { basename, join } from "node:path"
import { encodePng, isPng } from "../../apps/cli/bench/Png.ts"
import { recordLine } from "@core/datasets"

const AT = "2026-12-05T10:00:00.000Z"
type Row = Record<string, any>

/** A real RGB PNG of w×h whose pixels depend on `seed`. */
export const png = (w: number, h: number, seed: number): Uint8Array =>
  encodePng(
    w,
    h,
    Uint8Array.from({ length: w * h * 3 }, (_, i) => ((i % (3 * w)) * 5 + Math.floor(i / (3 * w)) * 11 + seed * 29) & 0xff)
  )
export { isPng }

const click = (elementId: string, name: string): Action =>
  ({ kind: "click", target: { role: "link", name, elementId, text: name } }) as Action
const step = (url: string, view: string, screenshot: string, action: Action): RecordStep => ({
  url,
  title: "Forum",
  view,
  screenshot,
  action,
  error: null
})

/** Round 2 of the fixture run: records with screenshots, built as the pipeline builds them. */
export const supplement = (shots: ReadonlyArray<string>): Array<DatasetRecord> => {
  // The page shows the five characters "<image>": text, not a screenshot.
  const home = '[e1] link "Cycling"\n[e2] link "Cooking"\n[e3] text "Embed a picture with <image> in your post"'
  const task = { taskId: "forum-open-board-1", instruction: "Open the Cycling board." }
  const pass: RecordTrajectory = {
    ...task,
    trajectoryId: "supp-pass",
    steps: [
      step("/forum/", home, shots[0]!, click("e1", "Cycling")),
      step("/forum/b/cycling", '[e9] heading "Cycling"', shots[1]!, { kind: "status", status: "complete" } as Action)
    ]
  }
  const fail: RecordTrajectory = {
    ...task,
    trajectoryId: "supp-fail",
    steps: [
      step("/forum/", home, shots[0]!, click("e2", "Cooking")),
      step("/forum/b/cooking", '[e9] heading "Cooking"', shots[2]!, { kind: "status", status: "complete" } as Action)
    ]
  }
  return [...sftRecords(pass), dpoRecord(pass, fail)!, rolloutRecord(pass, "pass", [1]), rolloutRecord(fail, "fail", [])]
}

/** The embedded store (and its blobs) in `dir`, as `--store embedded --data-dir dir` opens it. */
const layer = (dir: string) =>
  Layer.mergeAll(EmbeddedStore.layer({ path: join(dir, "events.db") }), DirectoryBlobStore.layer({ dir: join(dir, "blobs") }))

export const putImages = (dir: string, images: ReadonlyArray<Uint8Array>) =>
  Effect.runPromise(
    Effect.provide(
      Effect.gen(function* () {
        const blobs = yield* BlobStore
        return yield* Effect.forEach(images, (b) => blobs.put(b))
      }),
      layer(dir)
    )
  )

/** The records as one commit of DatasetRecordEmitted events and the round's seal. */
export const appendRound = (dir: string, runId: string, round: number, records: ReadonlyArray<DatasetRecord>) =>
  Effect.runPromise(
    Effect.provide(
      Effect.gen(function* () {
        const stream = runStream(runId, "dataset", String(round))
        const emitted = records.map(
          (r, i) =>
            makeEvent(DatasetRecordEmitted, {
              stream,
              runId,
              causationId: r.recordId,
              ordinal: i,
              recordedAt: AT,
              data: {
                recordId: r.recordId,
                round,
                format: r.format,
                trajectoryIds: r.trajectoryIds,
                taskId: r.taskId,
                body: r.body as typeof Schema.Json.Type,
                blobs: r.blobs
              }
            }) as CoreEvent
        )
        const seal = makeEvent(DatasetSealed, {
          stream,
          runId,
          causationId: `seal-${round}`,
          ordinal: 0,
          recordedAt: AT,
          data: { round, ...sealOf(records) }
        }) as CoreEvent
        const events = yield* EventStore
        yield* events.append(stream, [...emitted, seal], { expectedRevision: 0 })
      }),
      layer(dir)
    )
  )

/**
 * The run's records of each format as the plain export writes them (log order, one line per
 * record id): what every trainer layout must hold, record for record.
 */
export const plainLines = (dir: string, runId: string) =>
  Effect.runPromise(
    Effect.provide(
      Effect.gen(function* () {
        const lines: Record<string, Array<Row>> = { sft: [], dpo: [], rollout: [] }
        const seen = new Set<string>()
        yield* (yield* EventStore).readAll({ filter: `run.${runId}.dataset.*` }).pipe(
          Stream.runForEach((r) =>
            Effect.sync(() => {
              const e = r.event
              if (e.type !== "DatasetRecordEmitted" || seen.has(e.data.recordId)) return
              seen.add(e.data.recordId)
              lines[e.data.format]!.push(JSON.parse(recordLine(runId, e.data, "paths")) as Row)
            })
          )
        )
        return lines
      }),
      layer(dir)
    )
  )

/** The blob store's bytes for an image path `images/<hash>.png` (DirectoryBlobStore keeps `<dir>/<hash[0..2]>/<hash>`). */
export const blobOf = (dir: string, path: string) => {
  const hash = basename(path, ".png")
  return readFileSync(join(dir, "blobs", hash.slice(0, 2), hash))
}
