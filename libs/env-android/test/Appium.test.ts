/**
 * `AppiumEnvironment` against a real Appium 3 server started from the project's
 * node_modules (it finds the UiAutomator2 driver there). No device or emulator exists on
 * these machines, so what is tested is the part that runs here: session creation fails
 * fast with one line naming the server and the cause.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DirectoryBlobStore } from "@core/blobstore"
import { Environment } from "@core/environment"
import type { InfraError } from "@core/environment"
import * as AppiumEnvironment from "../AppiumEnvironment.ts"
import type { AppiumOptions } from "../AppiumEnvironment.ts"

const ROOT = join(import.meta.dir, "../../..")
const blobDir = mkdtempSync(join(tmpdir(), "core-appium-"))

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

interface AppiumServer {
  readonly url: string
  readonly process: ReturnType<typeof Bun.spawn>
  log: string
}

/** Starts Appium from the project's node_modules and waits until `/status` answers ready. */
const startAppium = async (env: Record<string, string | undefined>): Promise<AppiumServer> => {
  const port = await freePort()
  const proc = Bun.spawn(
    [
      "node",
      join(ROOT, "node_modules/appium/index.js"),
      "--address",
      "127.0.0.1",
      "--port",
      String(port),
      "--base-path",
      "/",
      "--log-level",
      "error",
      "--log-no-colors"
    ],
    { cwd: ROOT, env, stdin: "ignore", stdout: "ignore", stderr: "pipe" }
  )
  const server: AppiumServer = { url: `http://127.0.0.1:${port}`, process: proc, log: "" }
  void new Response(proc.stderr as ReadableStream).text().then((t) => (server.log += t))
  const until = performance.now() + 60_000
  for (;;) {
    const status = await fetch(`${server.url}/status`)
      .then((r) => r.json() as Promise<{ value?: { ready?: boolean } }>)
      .catch(() => null)
    if (status?.value?.ready === true) return server
    if (proc.exitCode !== null || performance.now() > until) throw new Error(`Appium did not start on ${server.url}: ${server.log}`)
    await Bun.sleep(200)
  }
}

const stopAppium = async (server: AppiumServer | null): Promise<void> => {
  if (server === null) return
  server.process.kill("SIGTERM")
  const exited = await Promise.race([server.process.exited.then(() => true), Bun.sleep(10_000).then(() => false)])
  if (!exited) server.process.kill("SIGKILL")
}

/** As this machine is: whatever ANDROID_HOME says (nothing, here). */
let plain: AppiumServer | null = null
/** With an Android SDK directory that holds no adb. */
let noAdb: AppiumServer | null = null
const emptySdk = mkdtempSync(join(tmpdir(), "core-empty-sdk-"))

beforeAll(async () => {
  ;[plain, noAdb] = await Promise.all([
    startAppium({ ...process.env }),
    startAppium({ ...process.env, ANDROID_HOME: emptySdk, ANDROID_SDK_ROOT: emptySdk })
  ])
}, 90_000)

afterAll(async () => {
  await Promise.all([stopAppium(plain), stopAppium(noAdb)])
  rmSync(blobDir, { recursive: true, force: true })
  rmSync(emptySdk, { recursive: true, force: true })
})

/** Runs `program` with an AppiumEnvironment in its own scope; the session (if any) ends with it. */
const withEnv = <A, E>(options: AppiumOptions, program: (env: Environment["Service"]) => Effect.Effect<A, E>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      return yield* program(yield* Environment)
    }).pipe(Effect.provide(AppiumEnvironment.layer(options).pipe(Layer.provide(DirectoryBlobStore.layer({ dir: blobDir })))))
  )

const failedReset = async (options: AppiumOptions): Promise<{ error: InfraError; ms: number }> => {
  const started = performance.now()
  const error = await withEnv(options, (env) => Effect.flip(env.reset({ taskId: "settings", app: "com.android.settings/.Settings" })))
  return { error, ms: Math.round(performance.now() - started) }
}

describe("AppiumEnvironment against a real Appium 3 server with no device", () => {
  test("given the server is up, when it is asked for its status, then it is Appium 3", async () => {
    const status = (await (await fetch(`${plain!.url}/status`)).json()) as { value: { build: { version: string } } }
    expect(status.value.build.version).toMatch(/^3\./)
  })

  test("given no device, when an episode is reset, then it fails fast with one line naming the server and the cause", async () => {
    const appiumUrl = plain!.url
    const { error, ms } = await failedReset({ appiumUrl, screenshots: "none" })
    console.log(`Appium session failure (no device) after ${ms} ms: ${error.reason}`)
    expect(error._tag).toBe("InfraError")
    expect(error.retryable).toBe(true)
    expect(error.reason).toStartWith(`cannot start an Android session at ${appiumUrl}: `)
    // Without adb or an SDK the driver says so; with them but no device, it says there is no device.
    expect(error.reason).toMatch(/ANDROID_HOME|ANDROID_SDK_ROOT|adb|device/i)
    expect(error.reason).not.toContain("\n")
    expect(error.reason).not.toMatch(/\bat .*\.(js|ts):\d+/)
    expect(error.reason).not.toContain("when running")
    expect(error.message).toBe(`environment infrastructure error: ${error.reason}`)
    // Bounded well below the session timeout: no retries, no hang.
    expect(ms).toBeLessThan(30_000)
  })

  test("given an SDK without adb, when an episode is reset, then the one line says adb is missing", async () => {
    const { error, ms } = await failedReset({ appiumUrl: noAdb!.url })
    console.log(`Appium session failure (SDK without adb) after ${ms} ms: ${error.reason}`)
    expect(error.reason).toStartWith(`cannot start an Android session at ${noAdb!.url}: Could not find 'adb' in [`)
    expect(error.reason).toContain(emptySdk)
    expect(error.reason).not.toContain("\n")
    expect(ms).toBeLessThan(30_000)
  })

  test("given no server at the URL, when an episode is reset, then the line says no Appium server answers", async () => {
    const nobody = `http://127.0.0.1:${await freePort()}`
    const { error } = await failedReset({ appiumUrl: nobody })
    expect(error.reason).toBe(
      `cannot start an Android session at ${nobody}: no Appium server answers there (start one: node node_modules/appium/index.js --address 127.0.0.1 --port 4723)`
    )
  })

  test("given a URL that is not http, when an episode is reset, then the line names the setting", async () => {
    const { error } = await failedReset({ appiumUrl: "127.0.0.1:4723" })
    expect(error.reason).toBe(`cannot start an Android session: "127.0.0.1:4723" is not an http(s) URL (android.appiumUrl)`)
  })

  test("given no episode, when a step is taken, then it is an InfraError asking for a reset", async () => {
    const error = await withEnv({ appiumUrl: plain!.url }, (env) => Effect.flip(env.step({ kind: "back" })))
    expect(error.reason).toBe("no episode in progress: call reset first")
  })
})
