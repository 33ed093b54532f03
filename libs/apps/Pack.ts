/**
 * Loading an app pack: a folder with `core-app.json` (Format.ts). Decoding is Effect
 * Schema with unknown keys refused; then the checks a schema cannot make — every path a
 * regular file inside the pack, placeholders each command may use, the rules between
 * fields. Any problem is ONE `PackError` line: `<file>: <json path>: <problem>`.
 *
 * @example
 * const pack = yield* loadPack("packs/myapp")
 * pack.config.instance.start // ["bun", "start.ts", "{port}"]
 */
import { Effect, Predicate, type Schema } from "effect"
import { resolve } from "node:path"
import { decodeStrict, jsonPath, oneLine } from "@core/demos"
import { ACTIVITY_EXPECTED, isActivity, isPackage, startActivity } from "./Android.ts"
import { placeholderProblem } from "./Argv.ts"
import type { CommandKind } from "./Argv.ts"
import { PACK_FILE, PACK_VERSION, PackError, PackFileV1, TASKS_VERSION, TasksFileV1 } from "./Format.ts"
import type { PackConfig, PackTask } from "./Format.ts"
import { MAX_JSON_BYTES, packFile, pathProblem } from "./PackFiles.ts"

/** A pack ready to run: its absolute folder, its configuration with defaults, its tasks. */
export interface Pack {
  /** Absolute: every command runs here, every path resolves under it. */
  readonly dir: string
  /** `core-app.json` as the caller named it, for messages. */
  readonly file: string
  readonly config: PackConfig
  readonly tasks: ReadonlyArray<PackTask>
}

export const DEFAULT_READY_TIMEOUT_MS = 15_000
/** The web environment's own bound: a pack that does not set `pageSettleMs` is observed as before it existed. */
export const DEFAULT_PAGE_SETTLE_MS = 1000

type Key = PropertyKey
type Fail = (path: ReadonlyArray<Key> | null, problem: string) => PackError

const UTF8 = new TextDecoder("utf-8", { fatal: true })

const failer =
  (file: string): Fail =>
  (path, problem) =>
    new PackError({ file, path: path === null ? null : oneLine(jsonPath(path), 200), problem: oneLine(problem, 500) })

/** Reads and parses one JSON file of the pack. */
const readJson = (dir: string, rel: string, fail: Fail, missing: string): Effect.Effect<unknown, PackError> =>
  Effect.suspend(() => {
    const read = packFile(dir, rel, { read: true, maxBytes: MAX_JSON_BYTES })
    if (!read.ok) return Effect.fail(fail(null, read.problem.endsWith("not found in the pack") ? missing : read.problem))
    try {
      return Effect.succeed(JSON.parse(UTF8.decode(read.bytes)) as unknown)
    } catch (e) {
      return Effect.fail(fail(null, e instanceof SyntaxError ? `not valid JSON (${e.message})` : "not UTF-8 text"))
    }
  })

/** Decodes with unknown keys refused; the first issue becomes the one line. */
const decode = <S extends Schema.Top>(schema: S, json: unknown, fail: Fail) => decodeStrict(schema, json, fail)

const versionOf = (json: unknown, expected: number, what: string): [ReadonlyArray<Key>, string] | null => {
  if (!Predicate.isObject(json) || Array.isArray(json)) return [[], `${what} is a JSON object`]
  if (!("version" in json)) return [["version"], `missing field (this build reads version ${expected})`]
  if (json.version !== expected)
    return [["version"], `unsupported version ${oneLine(JSON.stringify(json.version), 40)} (this build reads ${expected})`]
  return null
}

/** `{base}`, or an http(s) origin with nothing after host and port. */
const originProblem = (entry: string): string | null => {
  if (entry === "{base}") return null
  try {
    const url = new URL(entry)
    if (url.protocol !== "http:" && url.protocol !== "https:") return `'${entry}' is not an http(s) origin`
    if (url.origin !== entry.replace(/\/$/, "")) return `'${entry}' is not an origin (only scheme, host and port)`
    return null
  } catch {
    return `'${entry}' is neither '{base}' nor an absolute http(s) origin`
  }
}

/** The checks between fields and against the file system; the first problem fails. */
const checkConfig = (dir: string, c: PackFileV1, fail: Fail): Effect.Effect<void, PackError> =>
  Effect.suspend(() => {
    const commands: ReadonlyArray<[ReadonlyArray<Key>, ReadonlyArray<string> | undefined, CommandKind]> = [
      [["instance", "start"], c.instance.start, "start"],
      [["instance", "stop"], c.instance.stop, "stop"],
      [["instance", "reset", "command"], c.instance.reset?.command, "reset"],
      [["evaluate"], c.evaluate, "evaluate"],
      [["android", "restore"], c.android?.restore, "restore"]
    ]
    for (const [path, argv, kind] of commands) {
      const problem = argv === undefined ? null : placeholderProblem(argv, kind)
      if (problem !== null) return Effect.fail(fail([...path, problem[0]], problem[1]))
    }
    const reset = c.instance.reset
    if (reset !== undefined && (reset.command === undefined) === (reset.http === undefined)) {
      return Effect.fail(fail(["instance", "reset"], "expected exactly one of 'command' or 'http'"))
    }
    if (c.isolation === "reset-between-episodes" && reset === undefined) {
      return Effect.fail(fail(["instance", "reset"], "missing: isolation 'reset-between-episodes' needs a reset"))
    }
    if (c.platform === "android" && c.android === undefined)
      return Effect.fail(fail(["android"], "missing: platform 'android' needs appPackage and appActivity"))
    if (c.platform !== "android" && c.android !== undefined)
      return Effect.fail(fail(["android"], `only for platform 'android', this pack is '${c.platform}'`))
    if (c.android !== undefined && !isPackage(c.android.appPackage))
      return Effect.fail(fail(["android", "appPackage"], "expected a package name like 'org.example.app'"))
    if (c.android !== undefined && !isActivity(c.android.appActivity))
      return Effect.fail(fail(["android", "appActivity"], "expected an activity like '.Main' or 'org.example.app.Main'"))
    for (const [i, entry] of (c.origins ?? []).entries()) {
      const problem = originProblem(entry)
      if (problem !== null) return Effect.fail(fail(["origins", i], problem))
    }
    if (c.origins !== undefined && c.origins.length === 0) return Effect.fail(fail(["origins"], "expected at least one origin"))
    for (const [i, rel] of (c.runtimeFiles ?? []).entries()) {
      const problem = pathProblem(rel.replace(/\/$/, ""))
      if (problem !== null) return Effect.fail(fail(["runtimeFiles", i], problem))
    }
    for (const key of ["tasks", "auth"] as const) {
      const rel = c[key]
      const found = rel === undefined ? null : packFile(dir, rel, { read: false, maxBytes: MAX_JSON_BYTES })
      if (found !== null && !found.ok) return Effect.fail(fail([key], found.problem))
    }
    return Effect.void
  })

const resolveConfig = (c: PackFileV1): PackConfig => ({
  version: 1,
  name: c.name,
  platform: c.platform,
  instance: {
    start: c.instance.start,
    stop: c.instance.stop ?? null,
    reset:
      c.instance.reset === undefined
        ? null
        : c.instance.reset.command !== undefined
          ? { kind: "command", command: c.instance.reset.command }
          : { kind: "http", method: c.instance.reset.http?.method ?? "POST", path: c.instance.reset.http?.path ?? "/" },
    readyTimeoutMs: c.instance.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS
  },
  origins: c.origins ?? ["{base}"],
  auth: c.auth ?? null,
  isolation: c.isolation,
  pool: c.pool ?? 1,
  pageQuietMs: c.pageQuietMs ?? 0,
  pageSettleMs: c.pageSettleMs ?? DEFAULT_PAGE_SETTLE_MS,
  pageReady: c.pageReady ?? null,
  pageSaveMs: c.pageSaveMs ?? 0,
  hashRouting: c.hashRouting ?? false,
  tasks: c.tasks,
  evaluate: c.evaluate ?? null,
  runtimeFiles: c.runtimeFiles ?? [],
  android:
    c.android === undefined
      ? null
      : { appPackage: c.android.appPackage, appActivity: c.android.appActivity, restore: c.android.restore ?? null }
})

/** Reads the tasks file: ids unique, web starts are paths, step files inside the pack. */
const loadTasks = (dir: string, config: PackConfig, file: string): Effect.Effect<ReadonlyArray<PackTask>, PackError> =>
  Effect.gen(function* () {
    const fail = failer(file)
    const json = yield* readJson(dir, config.tasks, fail, "not found")
    const early = versionOf(json, TASKS_VERSION, "a tasks file")
    if (early) return yield* fail(...early)
    const decoded = yield* decode(TasksFileV1, json, fail)
    if (decoded.tasks.length === 0) return yield* fail(["tasks"], "a pack needs at least one task")
    const seen = new Set<string>()
    const tasks: Array<PackTask> = []
    for (const [i, t] of decoded.tasks.entries()) {
      if (seen.has(t.id)) return yield* fail(["tasks", i, "id"], `duplicate task id '${t.id}'`)
      seen.add(t.id)
      if (config.android !== null && startActivity(config.android.appPackage, t.start) === null)
        return yield* fail(["tasks", i, "start"], ACTIVITY_EXPECTED)
      if (config.platform === "web" && !t.start.startsWith("/")) {
        return yield* fail(["tasks", i, "start"], "expected a path relative to the base URL, starting with '/'")
      }
      if (t.steps !== undefined) {
        const steps = packFile(dir, t.steps, { read: false, maxBytes: MAX_JSON_BYTES })
        if (!steps.ok) return yield* fail(["tasks", i, "steps"], steps.problem)
      }
      tasks.push({ id: t.id, instruction: t.instruction, start: t.start, split: t.split, tags: t.tags ?? [], steps: t.steps ?? null })
    }
    return tasks
  })

/** Reads, decodes and checks the pack in `dir`. */
export const loadPack = Effect.fnUntraced(function* (dir: string): Effect.fn.Return<Pack, PackError> {
  const file = `${dir.replace(/\/+$/, "")}/${PACK_FILE}`
  const fail = failer(file)
  const json = yield* readJson(dir, PACK_FILE, fail, `not found (a pack is a folder with ${PACK_FILE})`)
  const early = versionOf(json, PACK_VERSION, PACK_FILE)
  if (early) return yield* fail(...early)
  const decoded = yield* decode(PackFileV1, json, fail)
  yield* checkConfig(dir, decoded, fail)
  const config = resolveConfig(decoded)
  const tasksFile = `${dir.replace(/\/+$/, "")}/${config.tasks}`
  const tasks = yield* loadTasks(dir, config, tasksFile)
  return { dir: resolve(dir), file, config, tasks }
})
