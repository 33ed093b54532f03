/**
 * Writing a demo folder (format core-demo v1, README.md) from recorded steps whose
 * observations name blobs in the `BlobStore`: the blobs are copied out beside demo.json as
 * `blobs/<sha256>.<ext>` (a sha256 name the loader checks), and demo.json is written last
 * and renamed into place, so a failure part-way never leaves a demo.json that points at
 * missing blobs. Both scripted solutions and the recorder write through here.
 */
import { Effect, Schema } from "effect"
import { mkdirSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { BlobStore } from "@core/blobstore"
import type { Action } from "@core/events"
import { DEMO_FORMAT, DEMO_VERSION } from "./Format.ts"
import type { DemoFileV1 } from "./Format.ts"

/** The folder or a file in it could not be written. */
export class DemoWriteError extends Schema.TaggedError<DemoWriteError>()("DemoWriteError", {
  message: Schema.String
}) {}

const writing = (what: string, write: () => void) =>
  Effect.try({ try: write, catch: (e) => new DemoWriteError({ message: `cannot write ${what}: ${e instanceof Error ? e.message : String(e)}` }) })

/** One step as recorded: observation fields are blob hashes (any further observation fields are ignored). */
export interface DemoFolderStep {
  readonly action: Action
  readonly urlBefore: string | null
  readonly urlAfter: string | null
  readonly observation: {
    readonly screenshot: string | null
    readonly elements: string | null
    readonly aria: string | null
  }
}

export interface DemoFolderIds {
  readonly demoId: string
  readonly taskId: string
  readonly recordedWith: "script" | "recorder"
}

type BlobField = "screenshot" | "elements" | "aria"
const extension: Record<BlobField, string> = { screenshot: "png", elements: "json", aria: "txt" }

/** Writes `steps` as a core-demo v1 folder in `dir` (demo.json + blobs/<sha256>.<ext>); returns the demo.json path. */
export const writeDemoFolder = Effect.fnUntraced(function*(steps: ReadonlyArray<DemoFolderStep>, dir: string, ids: DemoFolderIds) {
  const store = yield* BlobStore
  yield* writing(join(dir, "blobs"), () => mkdirSync(join(dir, "blobs"), { recursive: true }))
  const blobs: Record<string, string> = {}
  /** Copies a step's blob out of the store once; returns its name in `blobs` (its hash). */
  const copy = (step: DemoFolderStep, field: BlobField) =>
    Effect.gen(function*() {
      const hash = step.observation[field]
      if (hash === null) return null
      if (blobs[hash] === undefined) {
        const rel = `blobs/${hash}.${extension[field]}`
        const bytes = yield* store.get(hash)
        yield* writing(join(dir, rel), () => writeFileSync(join(dir, rel), bytes))
        blobs[hash] = rel
      }
      return hash
    })
  const written: Array<DemoFileV1["steps"][number]> = []
  for (const step of steps) {
    written.push({
      action: step.action,
      urlBefore: step.urlBefore,
      urlAfter: step.urlAfter,
      observation: { screenshot: yield* copy(step, "screenshot"), elements: yield* copy(step, "elements"), aria: yield* copy(step, "aria") }
    })
  }
  const demo: DemoFileV1 = {
    format: DEMO_FORMAT,
    version: DEMO_VERSION,
    demoId: ids.demoId,
    taskId: ids.taskId,
    platform: "web",
    recordedWith: ids.recordedWith,
    steps: written,
    blobs
  }
  const file = join(dir, "demo.json")
  const partial = join(dir, `.demo.json.${process.pid}.tmp`)
  yield* writing(file, () => {
    writeFileSync(partial, `${JSON.stringify(demo, null, 2)}\n`)
    renameSync(partial, file)
  })
  return file
})
