/**
 * An Android app pack end to end without a device: the fixture pack (fixtures/android)
 * starts the Appium stand-in of libs/env-android/test/support as its instance, the real
 * pool leases it, AppiumEnvironment (WebdriverIO over HTTP) plays the task's step file on
 * it, and the stand-in's own record of the commands it received says what reached the
 * "device" and in which order. The pack runs in place (its start names the stand-in by a
 * path relative to the pack), so its processes are found by that folder.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DirectoryBlobStore } from "@core/blobstore"
import { loadStepFile, playSteps } from "@core/demos"
import { AppiumEnvironment } from "@core/env-android"
import type { EnvTask, EpisodeSource } from "@core/environment"
import { core } from "../../../tests/support/cli.ts"
import { androidTaskStart, App, CommandApp, liveInstances, loadPack, packRunApp, packRunTask, PackError, stopAllInstances } from "../mod.ts"
import { down, eventually, fixtureRoot, leftovers, removeRoot, variant } from "./support.ts"

const PACK = join(import.meta.dir, "fixtures", "android")
const root = fixtureRoot("android")
const blobs = mkdtempSync(join(tmpdir(), "core-android-blobs-"))

afterEach(async () => {
  await Effect.runPromise(stopAllInstances())
  expect(leftovers(PACK)).toEqual([])
})
afterAll(() => {
  removeRoot(root)
  rmSync(blobs, { recursive: true, force: true })
})

interface Received {
  readonly route: string
  readonly script?: string
  readonly args?: any
}

const logOf = async (server: string): Promise<Array<Received>> =>
  (await fetch(new URL("standin/log", server))).json() as Promise<Array<Received>>
const stateOf = async (server: string) =>
  (await fetch(new URL("standin/state", server))).json() as Promise<{
    appPackage: string
    activity: string
    cleared: Array<string>
    sessions: number
  }>

/** Where a W3C pointer action sequence put the finger down. */
const tapPoint = (r: Received): { x: number; y: number } => {
  const move = (r.args.actions[0].actions as Array<{ type: string; x: number; y: number }>).find((a) => a.type === "pointerMove")!
  return { x: move.x, y: move.y }
}

const inside = (p: { x: number; y: number }, [x1, y1, x2, y2]: readonly [number, number, number, number]) =>
  p.x >= x1 && p.x < x2 && p.y >= y1 && p.y < y2

describe("an Android app pack on the Appium stand-in", () => {
  test("given the fixture pack, when it is loaded, then its starts are activities of its app and fresh state clears the app's data", async () => {
    const pack = await Effect.runPromise(loadPack(PACK))
    expect(pack.config.platform).toBe("android")
    expect(pack.tasks.map((t) => t.id)).toEqual(["fa-network-1", "fa-battery-1"])
    expect(pack.tasks.map((t) => androidTaskStart(pack.config, t.start))).toEqual([
      { app: "com.android.settings/.Settings", clearAppData: true },
      { app: "com.android.settings/.Settings", clearAppData: true }
    ])
    const shared = variant(root, "shared", (c) => (c.isolation = "shared-readonly"), { base: "android" })
    const sharedPack = await Effect.runPromise(loadPack(shared))
    expect(androidTaskStart(sharedPack.config, ".Settings")).toEqual({ app: "com.android.settings/.Settings" })
  })

  test("given a web path as an Android start or a malformed package, when the pack is loaded, then it is one line naming the field", async () => {
    const badStart = variant(root, "bad-start", () => undefined, {
      base: "android",
      files: { "tasks.json": JSON.stringify({ version: 1, tasks: [{ id: "t", instruction: "x", start: "/#Home", split: "train" }] }) }
    })
    const badPackage = variant(root, "bad-package", (c) => (c.android.appPackage = "settings"), { base: "android" })
    const [start, pkg] = await Promise.all([badStart, badPackage].map((d) => Effect.runPromise(Effect.flip(loadPack(d)))))
    expect(start).toBeInstanceOf(PackError)
    expect(start!.message).toBe(
      `${badStart}/tasks.json: tasks[0].start: expected an activity: '.Main' or 'org.example.Main' (of the pack's appPackage), or 'org.example/.Main'`
    )
    expect(pkg!.message).toBe(`${badPackage}/core-app.json: android.appPackage: expected a package name like 'org.example.app'`)
  })

  test("given the pack's pool, when an instance is leased and the layer closes, then the stand-in answered as Appium and nothing is left running", async () => {
    const baseUrl = await Effect.runPromise(
      App.use((app) =>
        Effect.gen(function* () {
          const lease = yield* app.acquire()
          const status = yield* Effect.promise(() =>
            fetch(new URL("status", lease.instance.baseUrl)).then((r) => r.json() as Promise<{ value: { ready: boolean } }>)
          )
          expect(status.value.ready).toBe(true)
          // As Appium: nothing at the root, so readiness cannot have been a GET of the base URL.
          expect(yield* Effect.promise(() => fetch(lease.instance.baseUrl).then((r) => r.status))).toBe(404)
          expect(lease.instance.handle).toBe(`appium-standin-${new URL(lease.instance.baseUrl).port}`)
          return lease.instance.baseUrl
        })
      ).pipe(Effect.provide(CommandApp.layer(PACK)))
    )
    expect(liveInstances()).toBe(0)
    expect(await down(baseUrl)).toBe(true)
    expect(leftovers(PACK)).toEqual([])
  })

  test("given a leased instance, when the task's step file is played through AppiumEnvironment, then the app's data was cleared before the start activity and the clicks reached the device", async () => {
    const pack = await Effect.runPromise(loadPack(PACK))
    const task = packRunTask(pack, pack.tasks[0]!)
    const steps = await Effect.runPromise(loadStepFile(join(PACK, pack.tasks[0]!.steps!)))
    const servers: Array<string> = []
    const named: Array<string | null> = []
    const result = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const run = packRunApp(pack, yield* App, { auth: null, readSecret: () => undefined })
          // The run's own source, watched: which server each episode was given.
          const episodes: EpisodeSource = {
            ...run.episodes,
            open: (site, seed, path) => run.episodes.open(site, seed, path).then((o) => (servers.push(o.serverUrl!), o))
          }
          const env = yield* AppiumEnvironment.make({ episodes, settleMs: 0, screenshots: "key" })
          // The episode an observation names is how a run finds its lease (to evaluate it).
          const watched = { ...env, reset: (t: EnvTask) => Effect.tap(env.reset(t), (o) => Effect.sync(() => void named.push(o.episode))) }
          const played = yield* playSteps(watched, { ...task.start, taskId: task.id }, steps.steps)
          // Read before the episode ends: instance-per-episode stops the stand-in then.
          const log = yield* Effect.promise(() => logOf(servers[0]!))
          const state = yield* Effect.promise(() => stateOf(servers[0]!))
          yield* env.close()
          return { played, log, state }
        })
      ).pipe(Effect.provide(Layer.merge(CommandApp.layer(PACK), DirectoryBlobStore.layer({ dir: blobs }))))
    )

    const { played, log, state } = result
    expect(servers).toHaveLength(1)
    expect(played.map((p) => p.observation.app)).toEqual([
      "com.android.phone/.NetworkTypeDialog",
      "com.android.settings/.Settings",
      "com.android.settings/.Settings"
    ])
    expect(named).toEqual(["fixture-android-1"])

    const scripts = log.map((r) => r.script ?? r.route)
    const clear = scripts.indexOf("mobile: clearApp")
    const launch = scripts.indexOf("mobile: startActivity")
    // The pool's readiness probe, then the environment's session.
    expect(log.slice(0, 2).map((r) => r.route)).toEqual(["GET /status", "POST /session"])
    expect(clear).toBeGreaterThan(0)
    expect(log[clear]!.args).toEqual([{ appId: "com.android.settings" }])
    expect(launch).toBeGreaterThan(clear)
    expect(log[launch]!.args).toEqual([{ intent: "com.android.settings/.Settings", wait: true }])
    // The steps' clicks as taps, after the launch, on "Network & internet" and then on "LTE preferencial".
    const taps = log.filter((r) => r.route === "POST /session/:id/actions")
    expect(taps).toHaveLength(2)
    expect(log.indexOf(taps[0]!)).toBeGreaterThan(launch)
    expect(inside(tapPoint(taps[0]!), [0, 397, 1080, 597])).toBe(true)
    expect(inside(tapPoint(taps[1]!), [0, 711, 1080, 899])).toBe(true)
    expect(state).toEqual({ appPackage: "com.android.settings", activity: ".Settings", cleared: ["com.android.settings"], sessions: 1 })

    // The episode ended: its instance is stopped (instance-per-episode), and closing the layer stopped the one that replaced it.
    expect(await eventually(() => down(servers[0]!))).toBe(true)
    expect(liveInstances()).toBe(0)
  })

  test("given instance-per-episode, when two episodes run one after the other, then each is on its own stand-in, announced by its lease", async () => {
    const pack = await Effect.runPromise(loadPack(PACK))
    const task = packRunTask(pack, pack.tasks[1]!)
    const seen: Array<{ server: string; scripts: Array<string> }> = []
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const run = packRunApp(pack, yield* App, { auth: null, readSecret: () => undefined })
          let server = ""
          const episodes: EpisodeSource = {
            ...run.episodes,
            open: (...a) => run.episodes.open(...a).then((o) => ((server = o.serverUrl!), o))
          }
          const env = yield* AppiumEnvironment.make({ episodes, settleMs: 0, screenshots: "none" })
          for (let i = 0; i < 2; i++) {
            yield* env.reset({ ...task.start, taskId: task.id })
            const log = yield* Effect.promise(() => logOf(server))
            seen.push({ server, scripts: log.map((r) => r.script ?? r.route) })
            yield* env.close()
          }
        })
      ).pipe(Effect.provide(Layer.merge(CommandApp.layer(PACK), DirectoryBlobStore.layer({ dir: blobs }))))
    )
    expect(seen[0]!.server).not.toBe(seen[1]!.server)
    for (const { scripts } of seen) {
      expect(scripts.filter((s) => s === "POST /session")).toHaveLength(1)
      expect(scripts.indexOf("mobile: clearApp")).toBeLessThan(scripts.indexOf("mobile: startActivity"))
      expect(scripts.indexOf("mobile: clearApp")).toBeGreaterThan(0)
    }
    expect(liveInstances()).toBe(0)
  })

  test("given the fixture pack, when `bun core app check` runs on it, then it opens the first task's activity on the stand-in and stops it", async () => {
    const [json, text] = await Promise.all([core(["app", "check", PACK, "--json"]), core(["app", "check", PACK])])
    // With stderr, so that a failure says why.
    expect({ code: json.code, stderr: json.stderr }).toEqual({
      code: 0,
      stderr: expect.stringMatching(/^app fixture-android: ready in \d+ ms at /)
    })
    const report = JSON.parse(json.stdout) as { ready_ms: number; title: null; elements: number; tasks: number; url: string; app: string }
    expect(report).toEqual({
      ready_ms: report.ready_ms,
      title: null,
      elements: 31,
      tasks: 2,
      url: report.url,
      app: "com.android.settings/.Settings"
    })
    expect(report.ready_ms).toBeLessThan(10_000)
    expect(report.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
    expect(await down(report.url)).toBe(true)
    expect({ code: text.code, stderr: text.stderr }).toEqual({
      code: 0,
      stderr: expect.stringMatching(/^app fixture-android: ready in \d+ ms at http:\/\/127\.0\.0\.1:\d+\/\n$/)
    })
    expect(text.stdout).toMatch(
      /^task fa-network-1: com\.android\.settings\/\.Settings with 31 elements on the Appium server at http:\/\/127\.0\.0\.1:\d+\/\n/
    )
    expect(text.stdout).toContain("app fixture-android: ok, 2 tasks, ready in ")
  }, 30_000)
})
