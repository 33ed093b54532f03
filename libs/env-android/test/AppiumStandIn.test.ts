/**
 * AppiumEnvironment over real HTTP against the Appium stand-in (support/AppiumStandIn.ts):
 * what a reset sends and in which order — app data kept by default, cleared before the
 * launch when the task asks — and episodes from an `EpisodeSource` whose server moves the
 * session. The stand-in's own record of the commands it received is the evidence.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DirectoryBlobStore } from "@core/blobstore"
import { Environment } from "@core/environment"
import type { EpisodeSource } from "@core/environment"
import * as AppiumEnvironment from "../AppiumEnvironment.ts"
import type { AppiumOptions } from "../AppiumEnvironment.ts"
import { startStandIn } from "./support/AppiumStandIn.ts"
import type { StandIn } from "./support/AppiumStandIn.ts"

const blobDir = mkdtempSync(join(tmpdir(), "core-standin-"))
const started: Array<StandIn> = []
const standIn = () => {
  const s = startStandIn()
  started.push(s)
  return s
}
afterAll(() => {
  for (const s of started) s.stop()
  rmSync(blobDir, { recursive: true, force: true })
})

const withEnv = <A, E>(options: AppiumOptions, program: (env: Environment["Service"]) => Effect.Effect<A, E>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      return yield* program(yield* Environment)
    }).pipe(
      Effect.provide(
        AppiumEnvironment.layer({ settleMs: 0, screenshots: "none", ...options }).pipe(
          Layer.provide(DirectoryBlobStore.layer({ dir: blobDir }))
        )
      )
    )
  )

const SETTINGS = "com.android.settings/.Settings"
const scripts = (s: StandIn) => s.log().map((r) => r.script ?? r.route)

describe("AppiumEnvironment on the Appium stand-in", () => {
  test("given a task without clearAppData, when it is reset, then the app is stopped and launched with its data kept", async () => {
    const appium = standIn()
    const first = await withEnv({ appiumUrl: appium.url }, (env) => env.reset({ taskId: "t", app: SETTINGS }))
    expect(first.observation.error).toBeNull()
    expect(first.view.app).toBe(SETTINGS)
    expect(first.elements).toHaveLength(31)
    expect(scripts(appium)).toEqual([
      "POST /session",
      "mobile: pressKey",
      "mobile: terminateApp",
      "mobile: startActivity",
      "GET /session/:id/source",
      "mobile: getCurrentPackage",
      "mobile: getCurrentActivity",
      "DELETE /session/:id"
    ])
    expect(appium.device.cleared).toEqual([])
  })

  test("given clearAppData, when the task is reset, then the data is cleared after the app is stopped and before it is launched", async () => {
    const appium = standIn()
    await withEnv({ appiumUrl: appium.url }, (env) => env.reset({ taskId: "t", app: SETTINGS, clearAppData: true }))
    expect(scripts(appium).slice(1, 5)).toEqual(["mobile: pressKey", "mobile: terminateApp", "mobile: clearApp", "mobile: startActivity"])
    expect(appium.log()[3]!.args).toEqual([{ appId: "com.android.settings" }])
    expect(appium.device.cleared).toEqual(["com.android.settings"])
  })

  test("given an app the device does not have, when its data is to be cleared, then the reset fails with one line naming the app", async () => {
    const appium = standIn()
    const error = await withEnv({ appiumUrl: appium.url }, (env) =>
      Effect.flip(env.reset({ taskId: "t", app: "org.example.absent/.Main", clearAppData: true }))
    )
    expect(error.reason).toBe(
      "cannot start the episode: cannot clear the data of org.example.absent: Cannot clear the application data of 'org.example.absent'. Original error: Failed"
    )
    expect(scripts(appium)).not.toContain("mobile: startActivity")
  })

  test("given a type into a field that takes no focus, when it is stepped, then the WebDriver lookup finds nothing and the policy is told", async () => {
    const appium = standIn()
    const { obs, id } = await withEnv({ appiumUrl: appium.url }, (env) =>
      Effect.gen(function* () {
        const first = yield* env.reset({ taskId: "t", app: SETTINGS })
        const search = first.elements.find((e) => e.role === "button" && e.name === "Search settings")!
        const obs = yield* env.step({
          kind: "type",
          target: { role: "button", name: search.name, elementId: search.id, text: null },
          text: "wifi"
        })
        return { obs, id: search.id }
      })
    )
    expect(obs.observation.error).toBe(`tapping ${id} focused no text field: nothing to type into`)
    const find = appium.log().find((r) => r.route === "POST /session/:id/element")
    expect(find?.args).toEqual({ using: "xpath", value: "//*[@focused='true']" })
  })

  test("given an episode source naming a server per episode, when episodes move between servers, then the session follows and each episode is given back", async () => {
    const [a, b] = [standIn(), standIn()]
    const ended: Array<string> = []
    let n = 0
    const servers = [a.url, b.url, b.url]
    const episodes: EpisodeSource = {
      open: async () => {
        const episode = `ep-${++n}`
        return { episode, startUrl: servers[n - 1]!, serverUrl: servers[n - 1]! }
      },
      discard: async (e) => void ended.push(`discarded ${e}`),
      end: async (e) => void ended.push(e)
    }
    const seen = await withEnv({ episodes, appiumUrl: "http://127.0.0.1:9/" }, (env) =>
      Effect.gen(function* () {
        const out: Array<string | null> = []
        for (let i = 0; i < 3; i++) out.push((yield* env.reset({ taskId: "t", site: "pack", siteSeed: 0, app: SETTINGS })).episode)
        yield* env.close()
        return out
      })
    )
    expect(seen).toEqual(["ep-1", "ep-2", "ep-3"])
    expect(ended).toEqual(["ep-1", "ep-2", "ep-3"])
    const sessions = (s: StandIn) =>
      s
        .log()
        .filter((r) => r.route === "POST /session" || r.route === "DELETE /session/:id")
        .map((r) => r.route)
    // One session on a, ended when the episodes moved to b; one on b, kept for the third episode.
    expect(sessions(a)).toEqual(["POST /session", "DELETE /session/:id"])
    expect(sessions(b)).toEqual(["POST /session", "DELETE /session/:id"])
    expect(b.log().filter((r) => r.script === "mobile: startActivity")).toHaveLength(2)
  })

  test("given an episode source that names no server, when an episode is reset, then it is one line and the episode is discarded", async () => {
    const discarded: Array<string> = []
    const episodes: EpisodeSource = {
      open: async () => ({ episode: "web-1", startUrl: "http://127.0.0.1:9/" }),
      discard: async (e) => void discarded.push(e)
    }
    const error = await withEnv({ episodes }, (env) => Effect.flip(env.reset({ taskId: "t", site: "shop", siteSeed: 1, app: SETTINGS })))
    expect(error.reason).toBe("cannot open a shop episode: its source names no Appium server (serverUrl)")
    expect(discarded).toEqual(["web-1"])
  })

  test("given the stand-in as a program, when its arguments are wrong, then it says how to run it", async () => {
    const proc = Bun.spawn(["bun", join(import.meta.dir, "support", "AppiumStandIn.ts"), "--port", "x"], { stdout: "pipe", stderr: "pipe" })
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()])
    expect(code).toBe(2)
    expect(stderr.trim()).toBe("usage: bun AppiumStandIn.ts --port <1-65535>")
  })
})
