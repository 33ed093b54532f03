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
import { deflateSync } from "node:zlib"
import { recordLine } from "../../apps/cli/DatasetFiles.ts"

const AT = "2026-12-05T10:00:00.000Z"
type Row = Record<string, any>

/** A real RGB PNG of w×h whose pixels depend on `seed`. */
export const png = (w: number, h: number, seed: number): Uint8Array => {
  const chunk = (type: string, data: Uint8Array) => {
    const b = Buffer.alloc(12 + data.length)
    b.writeUInt32BE(data.length, 0)
    b.write(type, 4, "latin1")
    Buffer.from(data).copy(b, 8)
    b.writeUInt32BE(Bun.hash.crc32(b.subarray(4, 8 + data.length)) >>> 0, 8 + data.length)
    return b
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(w, 0)
  ihdr.writeUInt32BE(h, 4)
  ihdr.set([8, 2, 0, 0, 0], 8)
  const raw = Buffer.alloc(h * (1 + 3 * w))
  for (let y = 0; y < h; y++) for (let x = 0; x < 3 * w; x++) raw[y * (1 + 3 * w) + 1 + x] = (x * 5 + y * 11 + seed * 29) & 0xff
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
  return Buffer.concat([Buffer.from(sig), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", new Uint8Array())])
}
export const isPng = (b: Uint8Array) => Buffer.from(b.subarray(0, 8)).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))

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
