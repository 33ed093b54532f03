/**
 * What CORE does to the files it is pointed at: it never writes into an SQLite database that
 * is not its own event log, and the data it keeps is readable by its owner only.
 */
import { afterAll, expect, test } from "bun:test"
import { Database } from "bun:sqlite"
import { Effect, Layer, type Schema } from "effect"
import { BlobStore, DirectoryBlobStore } from "@core/blobstore"
import { DatasetRecordEmitted, digest, makeEvent, runStream, sha256 } from "@core/events"
import type { CoreEvent } from "@core/events"
import { EmbeddedStore, EventStore } from "@core/eventstore"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core, expectOneLineError } from "./support/cli.ts"

const dirs: Array<string> = []
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "core-data-dir-"))
  dirs.push(d)
  return d
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

test("an SQLite database of someone else's at the event log's path is refused in one line and left byte-identical", async () => {
  const dataDir = tempDir()
  const path = join(dataDir, "events.db")
  const db = new Database(path, { create: true })
  db.run("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
  db.run("INSERT INTO invoices (total) VALUES (12.5)")
  db.close()
  const before = readFileSync(path)

  const r = await core(["events", "tail", "--no-follow", "--store", "embedded", "--data-dir", dataDir])
  expectOneLineError(r, expect)
  expect(r.stderr).toContain("not a CORE event log")
  expect(readFileSync(path).equals(before)).toBe(true)
  expect(existsSync(`${path}-wal`)).toBe(false)
  expect(existsSync(`${path}-shm`)).toBe(false)
})

const mode = (path: string) => statSync(path).mode & 0o777

/** A run with one sft record per image hash, its log and blobs written in-process to a fresh data dir. */
const writeRun = (dataDir: string, runId: string, stored: ReadonlyArray<Uint8Array>, missing: ReadonlyArray<string>) =>
  Effect.runPromise(
    Effect.provide(
      Effect.gen(function* () {
        const blobs = yield* BlobStore
        const hashes = [...(yield* Effect.forEach(stored, (b) => blobs.put(b))), ...missing]
        const events = hashes.map((hash, i): CoreEvent => {
          const body = { images: [hash], messages: [{ role: "user", content: `step ${i}` }] }
          const recordId = digest({ format: "sft", body })
          return makeEvent(DatasetRecordEmitted, {
            stream: runStream(runId, "dataset", "1"),
            runId,
            causationId: recordId,
            ordinal: 0,
            recordedAt: "2026-12-03T10:00:00.000Z",
            data: {
              recordId,
              round: 1,
              format: "sft",
              trajectoryIds: [`tr${i}`],
              taskId: "t",
              body: body as typeof Schema.Json.Type,
              blobs: [hash]
            }
          }) as CoreEvent
        })
        yield* (yield* EventStore).append(runStream(runId, "dataset", "1"), events, { expectedRevision: 0 })
      }),
      Layer.mergeAll(EmbeddedStore.layer({ path: join(dataDir, "events.db") }), DirectoryBlobStore.layer({ dir: join(dataDir, "blobs") }))
    )
  )

test("the data dir and an export are readable by their owner only", async () => {
  const dataDir = join(tempDir(), "data")
  await writeRun(dataDir, "private-run", [new TextEncoder().encode("screenshot")], [])
  expect(mode(dataDir)).toBe(0o700)
  expect(mode(join(dataDir, "events.db"))).toBe(0o600)
  expect(mode(join(dataDir, "blobs"))).toBe(0o700)

  const out = join(tempDir(), "export", "sft.jsonl")
  const r = await core([
    "dataset",
    "export",
    "--run",
    "private-run",
    "--format",
    "sft",
    "--out",
    out,
    "--store",
    "embedded",
    "--data-dir",
    dataDir
  ])
  expect(r.stderr).not.toContain("error")
  expect(mode(join(out, ".."))).toBe(0o700)
  expect(mode(out)).toBe(0o600)
  const images = join(out, "..", "images")
  expect(mode(images)).toBe(0o700)
  for (const name of readdirSync(images)) expect(mode(join(images, name))).toBe(0o600)
})

test("an export failing half way (a missing image) leaves no images/ and no JSONL behind", async () => {
  const dataDir = tempDir()
  await writeRun(dataDir, "broken-run", [new TextEncoder().encode("present")], [sha256("never stored")])
  const exportDir = join(tempDir(), "export")
  const r = await core([
    "dataset",
    "export",
    "--run",
    "broken-run",
    "--format",
    "sft",
    "--out",
    join(exportDir, "sft.jsonl"),
    "--store",
    "embedded",
    "--data-dir",
    dataDir
  ])
  expectOneLineError(r, expect)
  expect(r.stderr).toContain("image ")
  expect(readdirSync(exportDir)).toEqual([])
})
