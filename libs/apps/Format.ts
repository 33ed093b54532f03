/**
 * The app pack format, version 1 (docs/app-packs.md): `core-app.json` and its tasks file,
 * as Effect Schemas. Unknown keys are refused when decoding; what a schema cannot say (a
 * path inside the pack, a reset for `reset-between-episodes`, placeholders a command may
 * use) is checked by `loadPack` (Pack.ts).
 */
import { Predicate, Schema } from "effect"
import { oneLine } from "@core/demos"

export const PACK_FILE = "core-app.json"
export const PACK_VERSION = 1
export const TASKS_VERSION = 1

/** A command: the program, then its arguments. Never a shell string (Argv.ts says why). */
export const Argv = Schema.declare(
  (u: unknown): u is ReadonlyArray<string> => Array.isArray(u) && u.length > 0 && u.every(Predicate.isString),
  { expected: "a non-empty array of strings" }
)

const text = (expected: string) => Schema.String.annotate({ expected })

export const PackName = Schema.String.check(
  Schema.isPattern(/^[a-z0-9][a-z0-9-]*$/, { message: "expected lowercase letters, digits and '-', starting with a letter or digit" })
)

export const TaskId = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, { message: "expected letters, digits, '_' and '-', starting with a letter or digit" })
)

const UrlPath = Schema.String.check(Schema.isPattern(/^\//, { message: "expected a path that starts with '/'" }))

export const HttpReset = Schema.Struct({
  /** Default POST. */
  method: Schema.optionalKey(Schema.Literals(["GET", "POST", "PUT", "PATCH", "DELETE"])),
  /** Relative to the instance's base URL; success is any 2xx answer. */
  path: UrlPath
})

/** Exactly one of the two (checked by `loadPack`). */
export const ResetSpec = Schema.Struct({
  command: Schema.optionalKey(Argv),
  http: Schema.optionalKey(HttpReset)
})

export const InstanceSpec = Schema.Struct({
  start: Argv,
  stop: Schema.optionalKey(Argv),
  reset: Schema.optionalKey(ResetSpec),
  readyTimeoutMs: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 600_000 }, { message: "expected an integer between 100 and 600000" }))
  )
})

export const AndroidSpec = Schema.Struct({
  appPackage: Schema.NonEmptyString,
  appActivity: Schema.NonEmptyString,
  /** Restores a snapshot of the app's data instead of clearing it. */
  restore: Schema.optionalKey(Argv)
})

export const Isolation = Schema.Literals(["instance-per-episode", "reset-between-episodes", "shared-readonly"])
export type Isolation = typeof Isolation.Type

export const Platform = Schema.Literals(["web", "android"])
export type Platform = typeof Platform.Type

export const PackFileV1 = Schema.Struct({
  version: Schema.Literal(1),
  name: PackName,
  platform: Platform,
  instance: InstanceSpec,
  origins: Schema.optionalKey(Schema.Array(text("an origin: '{base}' or http(s)://host[:port]"))),
  auth: Schema.optionalKey(text("a path to a step file inside the pack")),
  isolation: Isolation,
  pool: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 16 }, { message: "expected an integer between 1 and 16" }))
  ),
  /** A page of this app is observed only after its DOM has not changed for this long (single-page apps that render on a timer). */
  pageQuietMs: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 5000 }, { message: "expected an integer between 0 and 5000 (milliseconds)" }))
  ),
  /** The longest an observation waits for `pageReady` and `pageQuietMs` (apps that load for seconds). */
  pageSettleMs: Schema.optionalKey(
    Schema.Int.check(
      Schema.isBetween({ minimum: 100, maximum: 30000 }, { message: "expected an integer between 100 and 30000 (milliseconds)" })
    )
  ),
  /** A CSS selector present once the app has loaded: a page is observed once something matches it. */
  pageReady: Schema.optionalKey(Schema.NonEmptyString.annotate({ expected: "a non-empty CSS selector" })),
  /** How long an episode's page stays open after its last action (apps that save in the background). */
  pageSaveMs: Schema.optionalKey(
    Schema.Int.check(
      Schema.isBetween({ minimum: 0, maximum: 10000 }, { message: "expected an integer between 0 and 10000 (milliseconds)" })
    )
  ),
  /** The app routes by the URL's fragment (`/#Title`, `#/inbox`): the fragment is part of a page's identity. */
  hashRouting: Schema.optionalKey(Schema.Boolean),
  tasks: text("a path to the tasks file inside the pack"),
  evaluate: Schema.optionalKey(Argv),
  /** Files (or folders, ending in '/') the pack's own processes write in its folder while it runs: not part of its digest. */
  runtimeFiles: Schema.optionalKey(Schema.Array(text("a path inside the pack"))),
  android: Schema.optionalKey(AndroidSpec)
})
export type PackFileV1 = typeof PackFileV1.Type

export const TaskSpec = Schema.Struct({
  id: TaskId,
  instruction: Schema.NonEmptyString,
  /** Web: a path relative to the base URL (starts with `/`); Android: an activity. */
  start: Schema.NonEmptyString,
  split: Schema.Literals(["train", "held-out"]),
  tags: Schema.optionalKey(Schema.Array(Schema.String)),
  /** A step file inside the pack: a scripted demo of the task. */
  steps: Schema.optionalKey(text("a path to a step file inside the pack"))
})

export const TasksFileV1 = Schema.Struct({
  version: Schema.Literal(1),
  tasks: Schema.Array(TaskSpec)
})

export type ResetConfig =
  | { readonly kind: "command"; readonly command: ReadonlyArray<string> }
  | { readonly kind: "http"; readonly method: string; readonly path: string }

/** `core-app.json` with its defaults filled in. */
export interface PackConfig {
  readonly version: 1
  readonly name: string
  readonly platform: Platform
  readonly instance: {
    readonly start: ReadonlyArray<string>
    readonly stop: ReadonlyArray<string> | null
    readonly reset: ResetConfig | null
    readonly readyTimeoutMs: number
  }
  /** As written: `{base}` or absolute origins (Lease origins fill `{base}` in). */
  readonly origins: ReadonlyArray<string>
  readonly auth: string | null
  readonly isolation: Isolation
  readonly pool: number
  /** 0: observe once the network is quiet, as for the bundled sites. */
  readonly pageQuietMs: number
  /** 1000 unless set: the web environment's own bound, as for the bundled sites. */
  readonly pageSettleMs: number
  /** Null: nothing to wait for beyond load, network idle and DOM quiet. */
  readonly pageReady: string | null
  /** 0: the page closes as soon as the episode ends. */
  readonly pageSaveMs: number
  /** False: a fragment is an in-page anchor, and URLs are recorded as path and query. */
  readonly hashRouting: boolean
  readonly tasks: string
  readonly evaluate: ReadonlyArray<string> | null
  /** Left out of the pack's digest (PackDigest.ts); none unless set. */
  readonly runtimeFiles: ReadonlyArray<string>
  readonly android: { readonly appPackage: string; readonly appActivity: string; readonly restore: ReadonlyArray<string> | null } | null
}

export interface PackTask {
  readonly id: string
  readonly instruction: string
  readonly start: string
  readonly split: "train" | "held-out"
  readonly tags: ReadonlyArray<string>
  /** Path inside the pack, or null. */
  readonly steps: string | null
}

/** A pack that cannot be used: `<file>: <json path>: <problem>`, one line. */
export class PackError extends Schema.TaggedError<PackError>()("PackError", {
  file: Schema.String,
  /** Null for problems of the whole file (missing, not JSON). */
  path: Schema.NullOr(Schema.String),
  problem: Schema.String
}) {
  override get message() {
    return oneLine(this.path === null ? `${this.file}: ${this.problem}` : `${this.file}: ${this.path}: ${this.problem}`, 1000)
  }
}

/** An app pack's check that failed: the app's name leads the line, so two packs' failures are told apart. */
export class AppCheckFailed extends Schema.TaggedError<AppCheckFailed>()("AppCheckFailed", {
  app: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `app ${this.app}: ${this.reason}`
  }
}
