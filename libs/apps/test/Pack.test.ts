/**
 * Loading packs: the good fixture with its defaults, and every way a pack can be wrong as
 * exactly one line `<file>: <json path>: <problem>`.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import { appendFileSync, linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { isRuntimeFile, loadPack, packDigest, PackError, packPageOptions } from "../mod.ts"
import { fixtureRoot, removeRoot, variant } from "./support.ts"

const root = fixtureRoot("pack")
afterAll(() => removeRoot(root))

const failure = (dir: string): string => {
  const result = Effect.runSync(Effect.flip(loadPack(dir)))
  expect(result).toBeInstanceOf(PackError)
  expect(result.message).not.toContain("\n")
  return result.message
}

test("the good fixture loads: absolute folder, defaults filled in, tasks in order", () => {
  const pack = Effect.runSync(loadPack(join(root, "good")))
  expect(pack.dir).toBe(join(root, "good"))
  expect(pack.config.instance.start).toEqual(["bun", "../server.ts", "{port}"])
  expect(pack.config.instance.reset).toEqual({ kind: "http", method: "POST", path: "/__reset" })
  expect(pack.config.pool).toBe(2)
  expect(pack.tasks.map((t) => [t.id, t.split, t.steps])).toEqual([
    ["fw-open-1", "train", "demos/fw-open-1.steps.json"],
    ["fw-save-1", "held-out", null]
  ])
  const daemon = Effect.runSync(loadPack(join(root, "daemon")))
  expect(daemon.config.origins).toEqual(["{base}"])
  expect(daemon.config.pool).toBe(1)
  expect(daemon.config.instance.readyTimeoutMs).toBe(10000)
  expect(daemon.config.instance.stop).toBeNull()
  expect([pack.config.hashRouting, daemon.config.hashRouting]).toEqual([false, false])
  expect([pack.config.pageSettleMs, pack.config.pageReady, pack.config.pageSaveMs]).toEqual([1000, null, 0])
})

test("a pack's page settling reaches its episodes' task only when set, so other packs are observed as before", () => {
  const plain = Effect.runSync(loadPack(join(root, "good")))
  expect(packPageOptions(plain)).toEqual({})
  const slow = Effect.runSync(
    loadPack(variant(root, "slow", (c) => ((c.pageSettleMs = 4000), (c.pageReady = "nav a"), (c.pageQuietMs = 100), (c.pageSaveMs = 1500))))
  )
  expect(packPageOptions(slow)).toEqual({ pageSettleMs: 4000, pageReady: "nav a", pageQuietMs: 100, pageSaveMs: 1500 })
})

test("every malformed pack is one line naming the file, the JSON path and the problem", () => {
  const cases: Array<[string, string, string]> = []
  const add = (name: string, patch: (c: any) => void, expected: string, files?: Record<string, string>) => {
    const dir = variant(root, name, patch, files ? { files } : {})
    cases.push([name, dir, expected])
  }
  const at = (name: string, file = "core-app.json") => `${join(root, name)}/${file}`

  // Whole-file problems.
  mkdirSync(join(root, "empty"))
  cases.push(["empty", join(root, "empty"), `${at("empty")}: not found (a pack is a folder with core-app.json)`])
  cases.push(["nowhere", join(root, "nowhere"), `${at("nowhere")}: not found (a pack is a folder with core-app.json)`])
  add("badjson", () => undefined, `${at("badjson")}: not valid JSON`)
  writeFileSync(join(root, "badjson", "core-app.json"), '{ "version": 1, ')
  add("huge", () => undefined, `${at("huge")}: 'core-app.json' is 1048586 bytes, over the 1048576-byte limit`)
  writeFileSync(join(root, "huge", "core-app.json"), " ".repeat(1024 * 1024 + 10))

  // Schema problems.
  add("unknown", (c) => (c.colour = "blue"), `${at("unknown")}: colour: unknown field`)
  add("unknown-nested", (c) => (c.instance.restart = ["x"]), `${at("unknown-nested")}: instance.restart: unknown field`)
  add(
    "shell-string",
    (c) => (c.instance.start = "bun server.ts {port}"),
    `${at("shell-string")}: instance.start: expected a non-empty array of strings`
  )
  add("empty-argv", (c) => (c.evaluate = []), `${at("empty-argv")}: evaluate: expected a non-empty array of strings`)
  add("version", (c) => (c.version = 2), `${at("version")}: version: unsupported version 2 (this build reads 1)`)
  add(
    "name",
    (c) => (c.name = "Fixture Wiki"),
    `${at("name")}: name: expected lowercase letters, digits and '-', starting with a letter or digit`
  )
  add("isolation", (c) => (c.isolation = "fresh"), `${at("isolation")}: isolation: expected`)
  add("pool", (c) => (c.pool = 17), `${at("pool")}: pool: expected an integer between 1 and 16`)
  add(
    "settle-low",
    (c) => (c.pageSettleMs = 50),
    `${at("settle-low")}: pageSettleMs: expected an integer between 100 and 30000 (milliseconds)`
  )
  add(
    "settle-high",
    (c) => (c.pageSettleMs = 60000),
    `${at("settle-high")}: pageSettleMs: expected an integer between 100 and 30000 (milliseconds)`
  )
  add("save-high", (c) => (c.pageSaveMs = 20000), `${at("save-high")}: pageSaveMs: expected an integer between 0 and 10000 (milliseconds)`)
  add("ready-empty", (c) => (c.pageReady = ""), `${at("ready-empty")}: pageReady: expected a non-empty CSS selector`)
  add("hash-routing", (c) => (c.hashRouting = "yes"), `${at("hash-routing")}: hashRouting: expected boolean`)
  add("missing", (c) => delete c.tasks, `${at("missing")}: tasks: missing field`)

  // Rules between fields, placeholders, origins.
  add(
    "placeholder",
    (c) => (c.instance.start = ["bun", "../server.ts", "{answer}"]),
    `${at("placeholder")}: instance.start[2]: unknown placeholder {answer} for start (it may use {port})`
  )
  add("program", (c) => (c.evaluate = ["{answer}"]), `${at("program")}: evaluate[0]: the program takes no placeholders, got {answer}`)
  add(
    "no-reset",
    (c) => ((c.isolation = "reset-between-episodes"), delete c.instance.reset),
    `${at("no-reset")}: instance.reset: missing: isolation 'reset-between-episodes' needs a reset`
  )
  add(
    "two-resets",
    (c) => (c.instance.reset.command = ["bun", "reset.ts"]),
    `${at("two-resets")}: instance.reset: expected exactly one of 'command' or 'http'`
  )
  add("android", (c) => (c.platform = "android"), `${at("android")}: android: missing: platform 'android' needs appPackage and appActivity`)
  add(
    "origin",
    (c) => (c.origins = ["{base}", "ftp://files.example"]),
    `${at("origin")}: origins[1]: 'ftp://files.example' is not an http(s) origin`
  )

  // Paths that leave the pack.
  add(
    "dotdot",
    (c) => (c.tasks = "../good/tasks.json"),
    `${at("dotdot")}: tasks: '../good/tasks.json' is not a path inside the pack (no '..')`
  )
  add(
    "absolute",
    (c) => (c.auth = "/etc/passwd"),
    `${at("absolute")}: auth: '/etc/passwd' is not a path inside the pack (it must be relative)`
  )
  add("link", (c) => (c.tasks = "linked.json"), `${at("link")}: tasks: 'linked.json' is a symbolic link, not a file`)
  symlinkSync(join(root, "good", "tasks.json"), join(root, "link", "linked.json"))
  add(
    "linked-folder",
    (c) => (c.auth = "outside/auth.steps.json"),
    `${at("linked-folder")}: auth: 'outside/auth.steps.json' is in a folder outside the pack (through a symbolic link)`
  )
  symlinkSync(join(root, "good"), join(root, "linked-folder", "outside"))
  add(
    "hard-link",
    (c) => (c.tasks = "linked.json"),
    `${at("hard-link")}: tasks: 'linked.json' has 2 hard links (it is also a file elsewhere)`
  )
  // A copy of the good tasks file outside the pack, hard-linked in: the good pack's own file keeps its one link.
  writeFileSync(join(root, "elsewhere.json"), readFileSync(join(root, "good", "tasks.json")))
  linkSync(join(root, "elsewhere.json"), join(root, "hard-link", "linked.json"))
  add(
    "runtime-outside",
    (c) => (c.runtimeFiles = ["logs/", "../elsewhere.log"]),
    `${at("runtime-outside")}: runtimeFiles[1]: '../elsewhere.log' is not a path inside the pack (no '..')`
  )
  add("no-tasks-file", (c) => (c.tasks = "missing.json"), `${at("no-tasks-file")}: tasks: 'missing.json' not found in the pack`)

  // The tasks file.
  const tasks = (list: ReadonlyArray<unknown>) => JSON.stringify({ version: 1, tasks: list })
  const task = (extra: object = {}) => ({ id: "t-1", instruction: "Do it", start: "/", split: "train", ...extra })
  add("dup", () => undefined, `${at("dup", "tasks.json")}: tasks[1].id: duplicate task id 't-1'`, { "tasks.json": tasks([task(), task()]) })
  add(
    "start",
    () => undefined,
    `${at("start", "tasks.json")}: tasks[0].start: expected a path relative to the base URL, starting with '/'`,
    { "tasks.json": tasks([task({ start: "http://example.com/" })]) }
  )
  add("steps", () => undefined, `${at("steps", "tasks.json")}: tasks[0].steps: '../x.json' is not a path inside the pack (no '..')`, {
    "tasks.json": tasks([task({ steps: "../x.json" })])
  })
  add("task-key", () => undefined, `${at("task-key")}`.replace("core-app.json", "tasks.json") + ": tasks[0].checker: unknown field", {
    "tasks.json": tasks([task({ checker: "x.js" })])
  })
  add("no-tasks", () => undefined, `${at("no-tasks", "tasks.json")}: tasks: a pack needs at least one task`, { "tasks.json": tasks([]) })

  const problems: Array<string> = []
  for (const [name, dir, expected] of cases) {
    const message = failure(dir)
    if (!message.startsWith(expected)) problems.push(`${name}:\n  got      ${message}\n  expected ${expected}`)
  }
  expect(problems).toEqual([])
})

test("the digest covers every file of the pack but its runtime files, follows no link and opens no FIFO", () => {
  const digestOf = (dir: string) => Effect.runSync(Effect.flatMap(loadPack(dir), packDigest))
  const dir = variant(root, "digest", (c) => (c.runtimeFiles = ["starts.log", "logs/"]), { files: { "server.ts": "serve()\n" } })
  const before = digestOf(dir)
  expect(before).toMatch(/^[0-9a-f]{64}$/)
  // What the pack writes while it runs, as it declared: the same pack.
  appendFileSync(join(dir, "starts.log"), "start\n")
  mkdirSync(join(dir, "logs"))
  writeFileSync(join(dir, "logs", "server.log"), "listening\n")
  expect(digestOf(dir)).toBe(before)
  // A script no config names, edited by one byte: another pack.
  writeFileSync(join(dir, "server.ts"), "serve();\n")
  const edited = digestOf(dir)
  expect(edited).not.toBe(before)
  // A file added anywhere, a link (hashed as its target's text, never followed), a FIFO (never opened): each another pack, at once.
  writeFileSync(join(dir, "extra.js"), "")
  const added = digestOf(dir)
  expect(added).not.toBe(edited)
  symlinkSync("/etc/passwd", join(dir, "passwd"))
  const linked = digestOf(dir)
  expect(linked).not.toBe(added)
  expect(spawnSync("mkfifo", [join(dir, "pipe")]).status).toBe(0)
  expect(digestOf(dir)).not.toBe(linked)
  expect([
    isRuntimeFile("logs/a/b.log", ["logs/"]),
    isRuntimeFile("logsx", ["logs/"]),
    isRuntimeFile("starts.log.1", ["starts.log"])
  ]).toEqual([true, false, false])
})
