/**
 * Instances of real fixture apps (Bun servers): each way a start fails is one line quoting
 * the app's last output, stop ends everything (a daemon in its own session too), the pack
 * sees none of our environment, and evaluate's exit codes. After each test, no process of
 * the fixtures is left.
 */
import { afterAll, afterEach, expect, test } from "bun:test"
import { Effect, Fiber } from "effect"
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs"
import { join } from "node:path"
import {
  evaluateEpisode,
  InstanceError,
  liveInstances,
  loadPack,
  loopbackUrl,
  resetInstance,
  startInstance,
  stopAllInstances,
  stopInstance
} from "../mod.ts"
import type { Instance, Pack } from "../mod.ts"
import { findProcesses, ticksOf } from "../Processes.ts"
import { down, eventually, fixtureRoot, leftovers, removeRoot, startMode, variant } from "./support.ts"

const root = fixtureRoot("instance")
afterEach(async () => {
  await Effect.runPromise(stopAllInstances())
  expect(leftovers(root)).toEqual([])
})
afterAll(() => removeRoot(root))

const load = (dir: string): Pack => Effect.runSync(loadPack(dir))
const start = (pack: Pack) => Effect.runPromise(startInstance(pack))
const startFailure = (pack: Pack) => Effect.runPromise(Effect.flip(startInstance(pack)))
const state = async (instance: Instance) => (await fetch(`${instance.baseUrl}__state`)).json() as Promise<{ resets: number; pid: number }>

test("each way a start fails is one line with the app's last output, and leaves no process", async () => {
  const pack = (name: string, startArgv: ReadonlyArray<string>, readyTimeoutMs = 10_000) =>
    load(variant(root, name, (c) => ((c.instance.start = startArgv), (c.instance.readyTimeoutMs = readyTimeoutMs))))
  const cases: ReadonlyArray<readonly [Pack, string]> = [
    [pack("notfound", ["no-such-program-xyz", "{port}"]), "start: command not found: no-such-program-xyz"],
    [pack("notfound-relative", ["./start.sh"]), "start: command not found: ./start.sh"],
    [pack("exit3", startMode("exit3")), "start exited with code 3 before printing URL=…; last output: boom: config.yml is missing"],
    [
      pack("nourl", startMode("nourl"), 700),
      "start did not become ready within 700 ms (no URL= line); last output: starting, but never saying where"
    ],
    [pack("hang", startMode("hang"), 700), "start did not become ready within 700 ms (nothing listens at http://127.0.0.1:"],
    [
      pack("remote", startMode("remote")),
      "start printed URL=http://example.com/: not an http(s) URL on loopback (127.0.0.1, localhost or [::1]); last output: URL=http://example.com/"
    ]
  ]
  const errors = await Promise.all(cases.map(([p]) => startFailure(p)))
  for (const [i, error] of errors.entries()) {
    expect(error).toBeInstanceOf(InstanceError)
    expect(error.message).not.toContain("\n")
    expect(error.message.startsWith(cases[i]![1])).toBe(true)
  }
  expect(errors[4]!.message).toEndWith("; last output: waiting for a database that never comes")
  expect(liveInstances()).toBe(0)
  expect(leftovers(root)).toEqual([])
})

test("a base URL is on loopback and carries no user name or password, which no refusal repeats", () => {
  expect(loopbackUrl("http://127.0.0.1:8080/app")).toEqual({ url: "http://127.0.0.1:8080/app" })
  const refused = loopbackUrl("http://user:hunter2@127.0.0.1:8080/")
  expect(refused).toEqual({
    problem:
      "start printed a URL with a user name or password (http://127.0.0.1:8080/): announce the bare URL and log in with the pack's auth"
  })
  expect(JSON.stringify(loopbackUrl("http://:hunter2@localhost:1/"))).not.toContain("hunter2")
  expect(loopbackUrl("http://example.com/")).toHaveProperty("problem")
})

test("the app runs in the pack's folder with a minimal environment: none of our secrets, its tag", async () => {
  process.env.CORE_TEST_MODEL_KEY = "sk-must-not-leak"
  try {
    const instance = await start(load(join(root, "good")))
    expect(instance.baseUrl).toBe(`http://127.0.0.1:${instance.port}/`)
    expect(instance.handle).toBe(`fx-${instance.port}`)
    const { pid } = await state(instance)
    expect(findProcesses({ tag: instance.tag })).toContain(pid)
    expect(readlinkSync(`/proc/${pid}/cwd`)).toBe(join(root, "good"))
    const names = readFileSync(`/proc/${pid}/environ`, "latin1")
      .split("\0")
      .filter((e) => e !== "")
      .map((e) => e.slice(0, e.indexOf("=")))
    expect(names.every((n) => ["PATH", "HOME", "LANG", "TMPDIR", "CORE_APP_INSTANCE_TAG"].includes(n))).toBe(true)
    expect(names).toContain("CORE_APP_INSTANCE_TAG")
    await Effect.runPromise(stopInstance(instance))
    expect(await down(instance.baseUrl)).toBe(true)
  } finally {
    delete process.env.CORE_TEST_MODEL_KEY
  }
})

test("stop ends a daemon that left the start's process group, and is idempotent", async () => {
  const instance = await start(load(join(root, "daemon")))
  expect(instance.handle).toBe(`daemon-${instance.port}`)
  const { pid } = await state(instance)
  // The server is in a session of its own: only the tag finds it.
  const group = Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[2])
  expect(group).toBe(pid)
  expect(leftovers(root).length).toBeGreaterThan(0)
  await Effect.runPromise(Effect.all([stopInstance(instance), stopInstance(instance)], { concurrency: 2 }))
  await Effect.runPromise(stopInstance(instance))
  expect(await down(instance.baseUrl)).toBe(true)
  expect(leftovers(root, [instance.tag])).toEqual([])
})

test("stop ends a server that cleared its environment but stayed in the start's group after the start exited", async () => {
  // No stop command: the pack cannot end it itself, so what ends it is CORE's own sweep.
  const instance = await start(load(variant(root, "groupie", (c) => ((c.instance.start = startMode("groupie")), delete c.instance.stop))))
  const { pid } = await state(instance)
  // No tag in its environment, and the group's leader is gone: only the group, read with the leader's exit time, finds it.
  expect(readFileSync(`/proc/${pid}/environ`, "latin1")).not.toContain("CORE_APP_INSTANCE_TAG")
  const leader = Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[2])
  expect(leader).not.toBe(pid)
  // Reaped, so the instance knows its start has exited.
  expect(await eventually(() => !existsSync(`/proc/${leader}`))).toBe(true)
  await Effect.runPromise(stopInstance(instance))
  const ended = () => !existsSync(`/proc/${pid}`) || / [ZX] /.test(readFileSync(`/proc/${pid}/stat`, "utf8").slice(String(pid).length))
  expect(await eventually(ended, 3000)).toBe(true)
  expect(await down(instance.baseUrl)).toBe(true)
})

test("uptime is read as whole clock ticks, never one short: a process forked in the tick the leader's exit was seen is still its group's", () => {
  // In floating point, 5022.19 and 0.58 times 100 are 502218.99999999994 and 57.99999999999999.
  expect(["5022.19 4524.39\n", "0.11 0.00", "0.58 0.01", "12.5 3.1", "7 1"].map(ticksOf)).toEqual([502219, 11, 58, 1250, 700])
})

test("reset by HTTP and by command; evaluate: 0 passes, 1 fails, 2 is an error; the answer is one inert argument", async () => {
  const http = await start(load(join(root, "good")))
  const byCommand = await start(
    load(variant(root, "reset-command", (c) => (c.instance.reset = { command: ["bun", "../reset.ts", "{base}"] })))
  )
  await Effect.runPromise(Effect.all([resetInstance(http), resetInstance(byCommand), resetInstance(byCommand)], { concurrency: 3 }))
  expect((await state(http)).resets).toBe(1)
  expect((await state(byCommand)).resets).toBe(2)

  const verdict = (answer: string) =>
    Effect.runPromise(
      evaluateEpisode(http, "fw-open-1", answer).pipe(
        Effect.map((r) => r.pass),
        Effect.catch((e) => Effect.succeed(e.message))
      )
    )
  const verdicts = await Promise.all(["pass", "no", "crash", "pass $(touch pwned); `id` {instance} ' \" ; rm -rf ~"].map(verdict))
  expect(verdicts).toEqual([
    true,
    false,
    "evaluate exited with code 2 (0 = pass, 1 = fail); last output: evaluator: cannot read the app's state",
    true
  ])
  expect(existsSync(join(root, "good", "pwned"))).toBe(false)

  const failing = await start(load(variant(root, "reset-fails", (c) => (c.instance.reset = { http: { path: "/missing" } }))))
  const resetError = await Effect.runPromise(Effect.flip(resetInstance(failing)))
  expect(resetError.message).toBe("reset: POST /missing answered 404")
  await Effect.runPromise(stopAllInstances())
  expect(await down(http.baseUrl)).toBe(true)
})

test("a start ended before it announced cleans up on SIGTERM and gets no stop; one that announces while being ended gets its stop", async () => {
  const marking = (mode: string) => (c: any) => (
    (c.instance.start = startMode(mode)),
    (c.instance.readyTimeoutMs = 30_000),
    (c.instance.stop = ["bun", "../mark.ts", "stops.log", "{instance}"])
  )
  const stopsIn = (dir: string) => (existsSync(join(dir, "stops.log")) ? readFileSync(join(dir, "stops.log"), "utf8").trim() : null)
  const dataIn = (dir: string) => readdirSync(dir).filter((f) => f.startsWith("data-"))
  for (const [mode, stopped] of [
    ["cleanup", null],
    ["late", /^late-\d+$/]
  ] as const) {
    const dir = variant(root, `ended-${mode}`, marking(mode))
    const fiber = Effect.runFork(startInstance(load(dir)))
    // The start is running (cleanup: its data folder made) and has announced nothing.
    expect(await eventually(() => existsSync(join(dir, "starts.log")) && (mode !== "cleanup" || dataIn(dir).length === 1))).toBe(true)
    await Bun.sleep(300)
    await Effect.runPromise(Fiber.interrupt(fiber))
    if (stopped === null) expect(stopsIn(dir)).toBeNull()
    else expect(stopsIn(dir)).toMatch(stopped)
    expect(dataIn(dir)).toEqual([])
    expect(leftovers(dir)).toEqual([])
  }
})
