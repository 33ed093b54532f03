/**
 * Reading demo files, version 1 or 2: decode (Effect Schema), then the checks a schema cannot
 * make — the task exists, the demo ends with `status` or `answer`, every blob file exists inside the
 * demo's folder and matches its sha256 name. Any problem is ONE `DemoFileError`. Files are
 * read through `folderReader` (SafeRead.ts): no links, no FIFOs or devices, sizes capped.
 */
import { Effect } from "effect"
import { readdirSync, statSync } from "node:fs"
import { basename, dirname, isAbsolute, join, normalize, sep } from "node:path"
import { Action, digest, sha256 } from "@core/events"
import type { DemoObservation, DemoStep, Platform } from "@core/events"
import { decodeStrict, DEMO_FORMAT, DEMO_VERSIONS, DemoFileError, DemoFileV1, DemoFileV2, jsonPath, oneLine } from "./Format.ts"
import type { DemoFile, DemoFileObservation, DemoFileStep, DemoFileStepV2 } from "./Format.ts"
import { folderReader } from "./SafeRead.ts"
import type { ReadLimit } from "./SafeRead.ts"

export interface LoadOptions {
  /** Task ids a demo may name (the bundled suites' instances). */
  readonly tasks: ReadonlySet<string>
  /** Largest file read, demo.json or one blob; default `DEFAULT_MAX_BLOB_BYTES` (config `ingest.maxBlobBytes`). */
  readonly maxBlobBytes?: number
  /** Largest demo, demo.json and its blobs together; default `DEFAULT_MAX_DEMO_BYTES` (config `ingest.maxDemoBytes`). */
  readonly maxDemoBytes?: number
}

export const DEFAULT_MAX_BLOB_BYTES = 16 * 1024 ** 2
export const DEFAULT_MAX_DEMO_BYTES = 256 * 1024 ** 2

const limitsOf = (options: LoadOptions): { readonly perFile: number; readonly perDemo: ReadLimit } => ({
  perFile: options.maxBlobBytes ?? DEFAULT_MAX_BLOB_BYTES,
  perDemo: { bytes: options.maxDemoBytes ?? DEFAULT_MAX_DEMO_BYTES, name: "per demo (ingest.maxDemoBytes)" }
})

export interface DemoBlob {
  readonly name: string
  readonly hash: string
  readonly bytes: Uint8Array
}

/** A demo ready to ingest: steps carry blob hashes, the blobs come along to be stored first. */
export interface LoadedDemo {
  readonly file: string
  /** The format version read: a version 1 demo has no `initial` and is web. */
  readonly version: DemoFile["version"]
  readonly demoId: string
  readonly taskId: string
  readonly platform: Platform
  readonly recordedWith: "script" | "recorder"
  /** The screen before the first step, as blob hashes; null in version 1. */
  readonly initial: DemoObservation | null
  readonly steps: ReadonlyArray<DemoStep>
  readonly blobs: ReadonlyArray<DemoBlob>
  /**
   * `digest({ taskId, steps })` in version 1, `digest({ taskId, platform, initial, steps })` in
   * version 2, with blob hashes: the same demo from anywhere digests the same.
   */
  readonly contentDigest: string
}

const SHA256 = /^[0-9a-f]{64}$/
const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The problems a schema message would state badly: wrong format/version, unknown action kinds, steps without an action. */
const precheck = (json: unknown): [ReadonlyArray<PropertyKey>, string] | null => {
  if (!isObject(json)) return [[], "a demo file is a JSON object"]
  if (json.format !== DEMO_FORMAT) return [["format"], `expected '${DEMO_FORMAT}', got ${JSON.stringify(json.format ?? null)}`]
  if (!(DEMO_VERSIONS as ReadonlyArray<unknown>).includes(json.version)) {
    return [
      ["version"],
      `unsupported demo format version ${JSON.stringify(json.version ?? null)} (this build reads ${DEMO_VERSIONS.join(", ")})`
    ]
  }
  if (!Array.isArray(json.steps)) return null
  for (const [i, step] of json.steps.entries()) {
    if (!isObject(step)) continue
    if (step.action === undefined || step.action === null) return [["steps", i, "action"], "missing: every step needs an action"]
    const kind = isObject(step.action) ? step.action.kind : undefined
    if (typeof kind !== "string") return [["steps", i, "action", "kind"], "missing action kind"]
    if (!(Action.discriminants as ReadonlyArray<string>).includes(kind)) {
      return [["steps", i, "action", "kind"], `unknown action kind '${kind}' (known: ${Action.discriminants.join(", ")})`]
    }
  }
  return null
}

type Fail = (path: ReadonlyArray<PropertyKey>, problem: string) => DemoFileError

/** Decodes and checks a demo's JSON text; `file` names it in errors and locates its blobs. */
export const parseDemo = (text: string, file: string, options: LoadOptions): Effect.Effect<LoadedDemo, DemoFileError> =>
  parseWith(text, file, options, folderReader(dirname(file), limitsOf(options).perDemo, new TextEncoder().encode(text).length))

const parseWith = (
  text: string,
  file: string,
  options: LoadOptions,
  reader: ReturnType<typeof folderReader>
): Effect.Effect<LoadedDemo, DemoFileError> =>
  Effect.gen(function* () {
    let demoId: string | null = null
    const fail: Fail = (path, problem) =>
      new DemoFileError({
        file,
        demoId,
        path: oneLine(jsonPath(path), 200),
        problem: oneLine(problem, 500),
        stepIndex: path[0] === "steps" && typeof path[1] === "number" ? path[1] : null
      })
    const json = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (e) => fail([], `not valid JSON (${e instanceof Error ? e.message : String(e)})`)
    })
    if (isObject(json) && typeof json.demoId === "string" && /^[A-Za-z0-9_-]+$/.test(json.demoId)) demoId = json.demoId
    const early = precheck(json)
    if (early) return yield* fail(...early)
    const demo: DemoFile =
      (json as { version: unknown }).version === 1
        ? yield* decodeStrict(DemoFileV1, json, fail)
        : yield* decodeStrict(DemoFileV2, json, fail)
    if (!options.tasks.has(demo.taskId))
      return yield* fail(["taskId"], `unknown task '${demo.taskId}' (not an instance of the bundled suites)`)
    if (demo.steps.length === 0) return yield* fail(["steps"], "a demo needs at least one step")
    const last = demo.steps.length - 1
    const lastKind = demo.steps[last]!.action.kind
    if (lastKind !== "status" && lastKind !== "answer") {
      return yield* fail(["steps", last, "action", "kind"], `the last step must be 'status' or 'answer', got '${lastKind}'`)
    }
    const blobs = yield* readBlobs(demo.blobs, reader, limitsOf(options).perFile, fail)
    const used = new Set<string>()
    const observe = (observation: DemoFileObservation, path: ReadonlyArray<PropertyKey>) =>
      resolveObservation(observation, blobs, used, path, fail)
    const initial = demo.version === 2 ? yield* observe(demo.initial, ["initial"]) : null
    const steps: Array<DemoStep> = []
    // Version 1 steps have no app fields: null, as the web's.
    for (const [i, step] of (demo.steps as ReadonlyArray<DemoFileStep & Partial<DemoFileStepV2>>).entries()) {
      steps.push({
        action: step.action,
        observation: yield* observe(step.observation, ["steps", i, "observation"]),
        urlBefore: step.urlBefore,
        urlAfter: step.urlAfter,
        appBefore: step.appBefore ?? null,
        appAfter: step.appAfter ?? null
      })
    }
    const content = initial === null ? { taskId: demo.taskId, steps } : { taskId: demo.taskId, platform: demo.platform, initial, steps }
    return {
      file,
      version: demo.version,
      demoId: demo.demoId,
      taskId: demo.taskId,
      platform: demo.platform,
      recordedWith: demo.recordedWith,
      initial,
      steps,
      blobs: [...blobs.values()].filter((b) => used.has(b.name)),
      contentDigest: digest(content)
    } satisfies LoadedDemo
  })

/** Every file `blobs` names: inside the demo's folder, present, and true to a sha256 name. */
const readBlobs = (named: Readonly<Record<string, string>>, reader: ReturnType<typeof folderReader>, perFile: number, fail: Fail) =>
  Effect.gen(function* () {
    const perBlob: ReadLimit = { bytes: perFile, name: "per blob (ingest.maxBlobBytes)" }
    const blobs = new Map<string, DemoBlob>()
    for (const [name, rel] of Object.entries(named).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const clean = normalize(rel)
      // A path in a message is cut short: the problem after it must stay visible.
      const shown = `'${oneLine(rel, 120)}'`
      if (rel === "" || isAbsolute(rel) || clean === ".." || clean.startsWith(`..${sep}`))
        return yield* fail(["blobs", name], `${shown} is not a path inside the demo's folder`)
      if (clean === "." || clean === `.${sep}`) return yield* fail(["blobs", name], `${shown} is the demo's folder, not a file`)
      const read = reader.read(clean, shown, perBlob)
      if (!read.ok) return yield* fail(["blobs", name], read.missing ? `blob file ${shown} not found beside the demo` : read.problem)
      const hash = sha256(read.bytes)
      if (SHA256.test(name) && name !== hash) return yield* fail(["blobs", name], `blob file ${shown} hashes to ${hash}, not to its name`)
      blobs.set(name, { name, hash, bytes: read.bytes })
    }
    return blobs as ReadonlyMap<string, DemoBlob>
  })

/** An observation's blob names as hashes, each name marked `used`; a name not in `blobs` is an error at `path`. */
const resolveObservation = (
  observation: DemoFileObservation,
  blobs: ReadonlyMap<string, DemoBlob>,
  used: Set<string>,
  path: ReadonlyArray<PropertyKey>,
  fail: Fail
): Effect.Effect<DemoObservation, DemoFileError> =>
  Effect.gen(function* () {
    const hashes: Record<string, string | null> = {}
    for (const field of ["screenshot", "elements", "aria"] as const) {
      const ref = observation[field]
      const blob = ref === null ? undefined : blobs.get(ref)
      if (ref !== null && blob === undefined) return yield* fail([...path, field], `unknown blob '${ref}' (not a key of blobs)`)
      if (ref !== null) used.add(ref)
      hashes[field] = blob?.hash ?? null
    }
    return { screenshot: hashes.screenshot ?? null, elements: hashes.elements ?? null, aria: hashes.aria ?? null }
  })

// Fatal: bytes that are not UTF-8 are refused rather than silently replaced inside ids and text.
const UTF8 = new TextDecoder("utf-8", { fatal: true })

/** Reads and checks one demo file. */
export const loadDemo = (file: string, options: LoadOptions): Effect.Effect<LoadedDemo, DemoFileError> =>
  Effect.suspend(() => {
    const limits = limitsOf(options)
    const reader = folderReader(dirname(file), limits.perDemo)
    const fail = (problem: string) => new DemoFileError({ file, demoId: null, path: "$", problem: oneLine(problem, 500), stepIndex: null })
    const read = reader.read(basename(file), basename(file), { bytes: limits.perFile, name: "per file (ingest.maxBlobBytes)" })
    if (!read.ok) return Effect.fail(fail(read.problem))
    let text: string
    try {
      text = UTF8.decode(read.bytes)
    } catch {
      return Effect.fail(fail("not UTF-8 text"))
    }
    return parseWith(text, file, options, reader)
  })

/** The demo files a path names: the file itself, or every `demo.json` under a directory (sorted). */
export const findDemoFiles = (path: string): ReadonlyArray<string> => {
  if (!statSync(path).isDirectory()) return [path]
  const found: Array<string> = []
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name === "node_modules" || entry.name.startsWith(".")) continue
      const full = join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name === "demo.json") found.push(full)
    }
  }
  walk(path)
  return found
}
