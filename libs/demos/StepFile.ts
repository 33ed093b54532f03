/**
 * Step files (docs/demos.md, "Step files"): a Playwright or Selenium script rewritten as CORE's
 * actions, each target by description — role, accessible name, text — instead of an element
 * id, which is episode-local and so cannot be written down ahead of time. `playSteps`
 * (PlaySteps.ts) finds each target on the live page and records a demo.
 *
 * A step file is input someone handed over, like a demo folder: it is read through
 * `folderReader` (no links, no FIFOs, size capped) and every problem is ONE line,
 * `<file>: <json path>: <problem>`.
 *
 * @example
 * const file = yield* loadStepFile("wishlist.steps.json")
 * // { version: 1, steps: [{ kind: "click", target: { role: "link", name: "Garden" } }, …] }
 */
import { Effect, Schema } from "effect"
import { basename, dirname } from "node:path"
import { Count, ScrollDirection, SecretEnvName, TypeMode } from "@core/events"
import type { Action, Target } from "@core/events"
import { describeTarget } from "@core/domain"
import { decodeStrict, jsonPath, oneLine } from "./Format.ts"
import { folderReader } from "./SafeRead.ts"

const NonEmpty = Schema.String.check(Schema.isNonEmpty())

/**
 * An element by description; at least one of role, name, text (checked after decoding, for a
 * clearer message). `name: null` is the element of `role` that has no accessible name.
 */
export const StepTarget = Schema.Struct({
  role: Schema.optionalKey(NonEmpty),
  name: Schema.optionalKey(Schema.NullOr(NonEmpty)),
  text: Schema.optionalKey(NonEmpty),
  nth: Schema.optionalKey(Count)
})
export type StepTarget = typeof StepTarget.Type

/** CORE's action vocabulary (events/Trajectory.ts `Action`), targets by description. */
export const Step = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("click"), target: StepTarget }),
  Schema.Struct({ kind: Schema.Literal("long_press"), target: StepTarget }),
  Schema.Struct({
    kind: Schema.Literal("type"),
    target: StepTarget,
    /** Required unless `secretEnv` is given (checked after decoding). */
    text: Schema.optionalKey(Schema.String),
    submit: Schema.optionalKey(Schema.Boolean),
    /** Passed on to the action as given: replace the field's value, or insert at the caret. */
    mode: Schema.optionalKey(TypeMode),
    secretEnv: Schema.optionalKey(SecretEnvName)
  }),
  Schema.Struct({ kind: Schema.Literal("select"), target: StepTarget, value: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("scroll"), direction: ScrollDirection, target: Schema.optionalKey(StepTarget) }),
  Schema.Struct({ kind: Schema.Literal("key"), key: NonEmpty }),
  /** A path relative to the app's base URL (where the episode started), never a full URL. */
  Schema.Struct({ kind: Schema.Literal("navigate"), url: NonEmpty }),
  Schema.Struct({ kind: Schema.Literal("back") }),
  Schema.Struct({ kind: Schema.Literal("home") }),
  Schema.Struct({ kind: Schema.Literal("open_app"), app: NonEmpty }),
  Schema.Struct({ kind: Schema.Literal("answer"), text: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("status"), status: Schema.Literals(["complete", "infeasible"]) }),
  Schema.Struct({ kind: Schema.Literal("wait"), ms: Count })
]).pipe(Schema.toTaggedUnion("kind"))
export type Step = typeof Step.Type

export const STEP_FILE_VERSION = 1

export const StepFileV1 = Schema.Struct({
  version: Schema.Literal(STEP_FILE_VERSION),
  steps: Schema.Array(Step)
})
export type StepFileV1 = typeof StepFileV1.Type

/** A step file is a page of a script: a megabyte is thousands of steps. */
export const DEFAULT_MAX_STEP_FILE_BYTES = 1024 ** 2

/** A step file that cannot be played: `<file>: <json path>: <problem>`, one line. */
export class StepFileError extends Schema.TaggedError<StepFileError>()("StepFileError", {
  file: Schema.String,
  path: Schema.String,
  problem: Schema.String
}) {
  override get message() {
    return `${oneLine(this.file, 1000)}: ${this.path}: ${this.problem}`
  }
}

/** `click link "Getting Started"`, `type searchbox "Search products"`, `scroll down`: a step as messages name it. */
export const describeStep = (step: Step): string => {
  switch (step.kind) {
    case "click":
    case "long_press":
    case "type":
    case "select":
      return `${step.kind} ${describeTarget(step.target)}`
    case "scroll":
      return `scroll ${step.direction}${step.target === undefined ? "" : ` ${describeTarget(step.target)}`}`
    case "key":
      return `key ${step.key}`
    case "navigate":
      return `navigate ${oneLine(step.url, 120)}`
    case "open_app":
      return `open_app ${oneLine(step.app, 120)}`
    case "status":
      return `status ${step.status}`
    case "wait":
      return `wait ${step.ms} ms`
    default:
      return step.kind
  }
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)
const KINDS = Step.discriminants as ReadonlyArray<string>

/** `"name": ""` would match no element: what the writer meant is said in the message. */
const EMPTY_NAME = 'an empty name matches no element; for the element that has no name, write "name": null (with its role)'

/** What a schema message would state badly: not an object, the version, unknown kinds, an empty name. */
const precheck = (json: unknown): [ReadonlyArray<PropertyKey>, string] | null => {
  if (!isObject(json)) return [[], 'a step file is a JSON object { "version": 1, "steps": [ … ] }']
  if (json.version !== STEP_FILE_VERSION)
    return [["version"], `unsupported step file version ${JSON.stringify(json.version ?? null)} (this build reads ${STEP_FILE_VERSION})`]
  if (!Array.isArray(json.steps)) return null
  for (const [i, step] of json.steps.entries()) {
    if (!isObject(step)) return [["steps", i], "a step is a JSON object with a kind"]
    const kind = step.kind
    if (typeof kind !== "string") return [["steps", i, "kind"], `missing step kind (one of: ${KINDS.join(", ")})`]
    if (!KINDS.includes(kind)) return [["steps", i, "kind"], `unknown step kind '${oneLine(kind, 60)}' (known: ${KINDS.join(", ")})`]
    if (isObject(step.target) && step.target.name === "") return [["steps", i, "target", "name"], EMPTY_NAME]
  }
  return null
}

/** How a step file is played: as a task's demo (the default), or as an app's log-in before the episode. */
export interface StepFileOptions {
  /**
   * An app pack's `auth`: played before the episode and kept out of it, so it neither answers
   * nor ends the episode — no `answer`, no `status`, and no last-step rule.
   */
  readonly auth?: boolean
}

/** The checks a schema does not state well: targets name something, the file ends the episode once, URLs stay relative. */
const semantic = (file: StepFileV1, options: StepFileOptions): [ReadonlyArray<PropertyKey>, string] | null => {
  if (file.steps.length === 0) return [["steps"], "a step file needs at least one step"]
  const last = file.steps.length - 1
  for (const [i, step] of file.steps.entries()) {
    const target = "target" in step ? step.target : undefined
    if (target !== undefined && target.role === undefined && target.name === undefined && target.text === undefined) {
      return [["steps", i, "target"], "a target needs at least one of role, name, text"]
    }
    if (target !== undefined && target.name === null && target.role === undefined) {
      return [["steps", i, "target"], '"name": null needs a role: the element with no name is found among those of its role']
    }
    if ((step.kind === "answer" || step.kind === "status") && options.auth === true) {
      return [["steps", i, "kind"], `a log-in comes before the episode and does not end it: no '${step.kind}' here`]
    }
    if ((step.kind === "answer" || step.kind === "status") && i !== last) {
      return [["steps", i, "kind"], `'${step.kind}' ends the episode: it must be the last step`]
    }
    if (step.kind === "navigate" && (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(step.url) || step.url.startsWith("//"))) {
      return [
        ["steps", i, "url"],
        "a path relative to the app's base URL (like /shop/wishlist), not a full URL: a demo must not depend on the server's address"
      ]
    }
    if (step.kind === "type" && step.secretEnv === undefined && step.text === undefined) return [["steps", i, "text"], "missing field"]
    if (step.kind === "type" && step.secretEnv !== undefined && step.text !== undefined && step.text !== "") {
      return [["steps", i, "text"], `a secret is typed by reference: leave text out, the environment types $${step.secretEnv}`]
    }
  }
  const end = file.steps[last]!.kind
  if (options.auth === true) return null
  if (end !== "answer" && end !== "status") return [["steps", last, "kind"], `the last step must be 'status' or 'answer', got '${end}'`]
  return null
}

/** Decodes and checks a step file's JSON text; `file` names it in errors. */
export const parseStepFile = (text: string, file: string, options: StepFileOptions = {}): Effect.Effect<StepFileV1, StepFileError> =>
  Effect.gen(function* () {
    const fail = (path: ReadonlyArray<PropertyKey>, problem: string) =>
      new StepFileError({ file, path: oneLine(jsonPath(path), 200), problem: oneLine(problem, 500) })
    const json = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (e) => fail([], `not valid JSON (${e instanceof Error ? e.message : String(e)})`)
    })
    const early = precheck(json)
    if (early) return yield* fail(...early)
    const decoded = yield* decodeStrict(StepFileV1, json, fail)
    const late = semantic(decoded, options)
    if (late) return yield* fail(...late)
    return decoded
  })

// Fatal: a step file that is not UTF-8 is refused rather than typed with replacement characters.
const UTF8 = new TextDecoder("utf-8", { fatal: true })

/** Reads and checks a step file: a regular file (no link, FIFO or device), at most `maxBytes` (default 1 MiB). */
export const loadStepFile = (
  file: string,
  options: StepFileOptions & { readonly maxBytes?: number } = {}
): Effect.Effect<StepFileV1, StepFileError> =>
  Effect.suspend(() => {
    const limit = { bytes: options.maxBytes ?? DEFAULT_MAX_STEP_FILE_BYTES, name: "for a step file" }
    const fail = (problem: string) => Effect.fail(new StepFileError({ file, path: "$", problem: oneLine(problem, 500) }))
    const read = folderReader(dirname(file), limit).read(basename(file), basename(file), limit)
    if (!read.ok) return fail(read.missing ? `${basename(file)} not found` : read.problem)
    let text: string
    try {
      text = UTF8.decode(read.bytes)
    } catch {
      return fail("not UTF-8 text")
    }
    return parseStepFile(text, file, options)
  })

/**
 * A recorded action as a step file's step, so a recorded trajectory (a run's verified pass)
 * can be played again and corrupted like a step file: a target by its role and name, found
 * on the live page when played (element ids are the episode's own), a navigation by its
 * recorded path. Null for an action no step file can say (an app switch, a target with
 * neither role nor name, a secret typed by reference, which a step file names itself).
 */
export const stepOfAction = (action: Action): Step | null => {
  const target = (t: Target | null): StepTarget | null =>
    t === null || (t.role === null && t.name === null)
      ? null
      : { ...(t.role === null ? {} : { role: t.role }), ...(t.name === null || t.name === "" ? {} : { name: t.name }) }
  switch (action.kind) {
    case "click":
    case "long_press": {
      const t = target(action.target)
      return t === null ? null : { kind: action.kind, target: t }
    }
    case "type": {
      const t = target(action.target)
      if (t === null || action.secretEnv !== undefined) return null
      return {
        kind: "type",
        target: t,
        text: action.text,
        ...(action.submit ? { submit: true } : {}),
        ...(action.mode === undefined ? {} : { mode: action.mode })
      }
    }
    case "select": {
      const t = target(action.target)
      return t === null ? null : { kind: "select", target: t, value: action.value }
    }
    case "scroll": {
      const t = action.target === null ? undefined : (target(action.target) ?? undefined)
      return { kind: "scroll", direction: action.direction, ...(t === undefined ? {} : { target: t }) }
    }
    case "key":
    case "navigate":
    case "answer":
    case "status":
    case "wait":
    case "back":
    case "home":
      return action.kind === "navigate" && (action.url === "" || /^[A-Za-z][A-Za-z0-9+.-]*:|^\/\//.test(action.url)) ? null : action
    default:
      return null
  }
}
