/**
 * The demo file format (docs/demos.md): one `demo.json` per demo, its blobs beside it.
 * Observations name blobs by their key in `blobs`; a key that is a sha256 must be the hash
 * of its file's bytes. Version 1 is web only and starts at the first step; version 2 adds
 * Android and mobile web, the app on both sides of each step, and `initial`, the screen
 * before the first step. Both are read.
 */
import { Effect, Predicate, Schema, SchemaIssue } from "effect"
import { Action, Platform } from "@core/events"

/** A demo id is a stream token (`ws.demo.<demoId>`). */
export const DemoId = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_-]+$/))

/** A blob reference: a key of the file's `blobs`. */
const BlobRef = Schema.NullOr(Schema.String)

/** The screen as blobs: on Android `elements` is the element list and `aria` the UiAutomator hierarchy (as AppiumEnvironment stores them). */
export const DemoFileObservation = Schema.Struct({ screenshot: BlobRef, elements: BlobRef, aria: BlobRef })
export type DemoFileObservation = typeof DemoFileObservation.Type

export const DemoFileStep = Schema.Struct({
  action: Action,
  urlBefore: Schema.NullOr(Schema.String),
  urlAfter: Schema.NullOr(Schema.String),
  observation: DemoFileObservation
})
export type DemoFileStep = typeof DemoFileStep.Type

const recordedWith = Schema.Literals(["script", "recorder"])
/** Blob name → path of its file, relative to the demo's folder. */
const Blobs = Schema.Record(Schema.String, Schema.String)

// Fields in the order of the file's keys: with several problems, the first one reported is the first in the file.
export const DemoFileV1 = Schema.Struct({
  format: Schema.Literal("core-demo"),
  version: Schema.Literal(1),
  demoId: DemoId,
  taskId: Schema.String,
  platform: Schema.Literal("web"),
  recordedWith,
  steps: Schema.Array(DemoFileStep),
  blobs: Blobs
})
export type DemoFileV1 = typeof DemoFileV1.Type

/** A step of version 2: the app (`package/activity` on Android, null on the web) as well as the url, on both sides. */
export const DemoFileStepV2 = Schema.Struct({
  action: Action,
  urlBefore: Schema.NullOr(Schema.String),
  urlAfter: Schema.NullOr(Schema.String),
  appBefore: Schema.NullOr(Schema.String),
  appAfter: Schema.NullOr(Schema.String),
  observation: DemoFileObservation
})
export type DemoFileStepV2 = typeof DemoFileStepV2.Type

export const DemoFileV2 = Schema.Struct({
  format: Schema.Literal("core-demo"),
  version: Schema.Literal(2),
  demoId: DemoId,
  taskId: Schema.String,
  platform: Platform,
  recordedWith,
  /** The screen before the first step; its url / app are the first step's `urlBefore` / `appBefore`. */
  initial: DemoFileObservation,
  steps: Schema.Array(DemoFileStepV2),
  blobs: Blobs
})
export type DemoFileV2 = typeof DemoFileV2.Type

export type DemoFile = DemoFileV1 | DemoFileV2

export const DEMO_FORMAT = "core-demo"
/** The versions this build reads; writers write the last one when they have the screen before the first step. */
export const DEMO_VERSIONS = [1, 2] as const
export const DEMO_VERSION = 2

/**
 * `text` fit for one line of a terminal: line breaks become `; `, other control characters
 * `?`, and anything past `max` characters is cut — a key, a path or a folder name in a
 * hostile demo can hold any of them.
 */
export const oneLine = (text: string, max = 300): string => {
  const flat = text.replace(/\s*[\n\r\u2028\u2029]+\s*/g, "; ").replace(/[\u0000-\u001f\u007f-\u009f]/g, "?")
  return flat.length > max ? `${flat.slice(0, max)}…` : flat
}

/** A count and its noun, the noun in the plural unless the count is 1: `1 label function`, `3 key steps`. */
export const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`

/** A demo file that cannot be ingested: `<file>: <json path>: <problem>`, one line. */
export class DemoFileError extends Schema.TaggedError<DemoFileError>()("DemoFileError", {
  file: Schema.String,
  /** Null when the file was too broken to name its demo. */
  demoId: Schema.NullOr(Schema.String),
  path: Schema.String,
  problem: Schema.String,
  stepIndex: Schema.NullOr(Schema.Int)
}) {
  override get message() {
    return `${oneLine(this.file, 1000)}: ${this.reason}`
  }
  /** The message without the file (DemoRejected carries the file as its source). */
  get reason() {
    return `${this.path}: ${this.problem}`
  }
}

/** `steps[2].action.kind` from a path of keys and indices. */
export const jsonPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (s, k) =>
      typeof k === "number"
        ? `${s}[${k}]`
        : /^[A-Za-z_$][\w$]*$/.test(String(k))
          ? `${s}${s ? "." : ""}${String(k)}`
          : `${s}[${JSON.stringify(String(k))}]`,
    ""
  ) || "$"

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1)

/**
 * Decodes `json` with unknown keys refused; the first issue becomes ONE problem at its JSON
 * path (`fail(path, problem)`), in words a user reads: "unknown field", "missing field".
 * Shared by every file format CORE reads from outside (demos, step files, app packs).
 */
export const decodeStrict = <S extends Schema.Top, E>(
  schema: S,
  json: unknown,
  fail: (path: ReadonlyArray<PropertyKey>, problem: string) => E
) =>
  Schema.decodeUnknownEffect(schema)(json, { onExcessProperty: "error" }).pipe(
    Effect.mapError((error) => {
      const first = SchemaIssue.makeFormatterStandardSchemaV1()(error.issue).issues[0]
      const message = lowerFirst((first?.message ?? "invalid value").replace(/ \| undefined/g, ""))
      const path = (first?.path ?? []).map((k) => (Predicate.isObject(k) && "key" in k ? (k.key as PropertyKey) : (k as PropertyKey)))
      return fail(path, message === "expected no excess property" ? "unknown field" : message === "missing key" ? "missing field" : message)
    })
  )
