/**
 * Writing a demo folder (format core-demo v1 or v2, docs/demos.md) from recorded steps whose
 * observations name blobs in the `BlobStore`: the blobs are copied out beside demo.json as
 * `blobs/<sha256>.<ext>` (a sha256 name the loader checks), and demo.json is written last
 * and renamed into place, so a failure part-way never leaves a demo.json that points at
 * missing blobs. Both scripted solutions and the recorder write through here.
 */
import { Effect, Schema } from "effect"
import { mkdirSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { BlobStore } from "@core/blobstore"
import type { Action, Platform } from "@core/events"
import { DEMO_FORMAT } from "./Format.ts"
import type { DemoFile, DemoFileV2 } from "./Format.ts"

/** The folder or a file in it could not be written. */
export class DemoWriteError extends Schema.TaggedError<DemoWriteError>()("DemoWriteError", {
  message: Schema.String
}) {}

/** A finished recording that could not be written where it was asked to go. */
export class DemoNotWritten extends Schema.TaggedError<DemoNotWritten>()("DemoNotWritten", {
  out: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `cannot write the demo to ${this.out}: ${this.reason}`
  }
}

const writing = (what: string, write: () => void) =>
  Effect.try({
    try: write,
    catch: (e) => new DemoWriteError({ message: `cannot write ${what}: ${e instanceof Error ? e.message : String(e)}` })
  })

/** The screen as recorded: blob hashes (any further fields are ignored). */
export interface DemoFolderObservation {
  readonly screenshot: string | null
  readonly elements: string | null
  readonly aria: string | null
}

/** One step as recorded: observation fields are blob hashes; the app fields default to null (the web). */
export interface DemoFolderStep {
  readonly action: Action
  readonly urlBefore: string | null
  readonly urlAfter: string | null
  readonly appBefore?: string | null
  readonly appAfter?: string | null
  readonly observation: DemoFolderObservation
}

export interface DemoFolderIds {
  readonly demoId: string
  readonly taskId: string
  readonly recordedWith: "script" | "recorder"
  /** The screen before the first step: given, the folder is version 2 with it as `initial`. */
  readonly initial?: DemoFolderObservation
  /** Default web. Another platform is version 2 only (with `initial` all null when not given). */
  readonly platform?: Platform
}

type BlobField = keyof DemoFolderObservation

/**
 * Writes `steps` as a core-demo folder in `dir` (demo.json + blobs/<sha256>.<ext>); returns the
 * demo.json path. Version 2 when the screen before the first step is given (or the platform is
 * not the web), else version 1 — what scripted site solutions write, so their demos stay as they were.
 */
export const writeDemoFolder = Effect.fnUntraced(function* (steps: ReadonlyArray<DemoFolderStep>, dir: string, ids: DemoFolderIds) {
  const store = yield* BlobStore
  const platform = ids.platform ?? "web"
  const extension: Record<BlobField, string> = { screenshot: "png", elements: "json", aria: platform === "android" ? "xml" : "txt" }
  yield* writing(join(dir, "blobs"), () => mkdirSync(join(dir, "blobs"), { recursive: true }))
  const blobs: Record<string, string> = {}
  /** Copies an observation's blob out of the store once; returns its name in `blobs` (its hash). */
  const copy = (observation: DemoFolderObservation, field: BlobField) =>
    Effect.gen(function* () {
      const hash = observation[field]
      if (hash === null) return null
      if (blobs[hash] === undefined) {
        const rel = `blobs/${hash}.${extension[field]}`
        const bytes = yield* store.get(hash)
        yield* writing(join(dir, rel), () => writeFileSync(join(dir, rel), bytes))
        blobs[hash] = rel
      }
      return hash
    })
  const observed = (o: DemoFolderObservation) =>
    Effect.gen(function* () {
      return { screenshot: yield* copy(o, "screenshot"), elements: yield* copy(o, "elements"), aria: yield* copy(o, "aria") }
    })
  const v2 = ids.initial !== undefined || platform !== "web"
  // The initial screen's blobs are copied first: a folder reads in the order it was seen.
  const initial = v2 ? yield* observed(ids.initial ?? { screenshot: null, elements: null, aria: null }) : null
  const written: Array<DemoFileV2["steps"][number]> = []
  for (const step of steps) {
    written.push({
      action: step.action,
      urlBefore: step.urlBefore,
      urlAfter: step.urlAfter,
      appBefore: step.appBefore ?? null,
      appAfter: step.appAfter ?? null,
      observation: yield* observed(step.observation)
    })
  }
  // Keys in the order of the example in docs/demos.md: version 1 folders are byte for byte what they were.
  const { demoId, taskId, recordedWith } = ids
  const demo: DemoFile =
    initial === null
      ? {
          format: DEMO_FORMAT,
          version: 1,
          demoId,
          taskId,
          platform: "web",
          recordedWith,
          steps: written.map(({ appBefore: _b, appAfter: _a, ...v1 }) => v1),
          blobs
        }
      : { format: DEMO_FORMAT, version: 2, demoId, taskId, platform, recordedWith, initial, steps: written, blobs }
  const file = join(dir, "demo.json")
  const partial = join(dir, `.demo.json.${process.pid}.tmp`)
  yield* writing(file, () => {
    writeFileSync(partial, `${JSON.stringify(demo, null, 2)}\n`)
    renameSync(partial, file)
  })
  return file
})
