/**
 * The `App` of a pack folder (CommandApp.layer) over real fixture apps: what a lease's
 * release does per isolation mode, failed starts retried then reported, and the layer's
 * scope stopping every instance — leased, ready or still starting.
 */
import { afterAll, afterEach, expect, test } from "bun:test"
import { Effect, Exit, Layer, Scope } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { App, CommandApp, InstanceError, liveInstances, stopAllInstances } from "../mod.ts"
import { down, eventually, fixtureRoot, leftovers, removeRoot, startMode, variant } from "./support.ts"

const root = fixtureRoot("pool")
afterEach(async () => {
  await Effect.runPromise(stopAllInstances())
  expect(leftovers(root)).toEqual([])
})
afterAll(() => removeRoot(root))

/** Runs `body` with the pack's App; the layer's scope closes when it ends. */
const withApp = <A>(dir: string, body: (app: App["Service"]) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(App.use(body).pipe(Effect.provide(CommandApp.layer(dir))))

const resets = async (baseUrl: string) => ((await (await fetch(`${baseUrl}__state`)).json()) as { resets: number }).resets
const starts = (dir: string) =>
  existsSync(join(dir, "starts.log")) ? readFileSync(join(dir, "starts.log"), "utf8").trim().split("\n").length : 0

test("instance-per-episode: every lease a fresh instance on its own port, stopped on release; evaluate through the lease", async () => {
  await withApp(join(root, "good"), (app) =>
    Effect.gen(function* () {
      expect(app.name).toBe("fixture-wiki")
      expect(app.tasks.map((t) => t.id)).toEqual(["fw-open-1", "fw-save-1"])
      const [a, b] = yield* Effect.all([app.acquire(), app.acquire()], { concurrency: 2 })
      expect(a!.instance.baseUrl).not.toBe(b!.instance.baseUrl)
      expect(a!.origins).toEqual([new URL(a!.instance.baseUrl).origin])
      const verdict = yield* app.evaluate!(a!, "fw-open-1", "pass")
      expect(verdict.pass).toBe(true)
      yield* a!.release()
      yield* a!.release()
      expect(yield* Effect.promise(() => eventually(() => down(a!.instance.baseUrl)))).toBe(true)
      const c = yield* app.acquire()
      expect([a!.instance.baseUrl, b!.instance.baseUrl]).not.toContain(c.instance.baseUrl)
      // b and c stay leased: closing the layer must stop them.
    })
  )
  expect(liveInstances()).toBe(0)
})

test("reset-between-episodes reuses the instance after resetting it; shared-readonly shares one", async () => {
  const dir = variant(root, "reuse", (c) => ((c.isolation = "reset-between-episodes"), (c.pool = 1)))
  await withApp(dir, (app) =>
    Effect.gen(function* () {
      const first = yield* app.acquire()
      yield* first.release()
      const second = yield* app.acquire()
      expect(second.instance.baseUrl).toBe(first.instance.baseUrl)
      expect(yield* Effect.promise(() => resets(second.instance.baseUrl))).toBe(1)
    })
  )
  const shared = variant(root, "shared", (c) => ((c.isolation = "shared-readonly"), (c.pool = 1), delete c.instance.reset))
  await withApp(shared, (app) =>
    Effect.gen(function* () {
      const [a, b] = yield* Effect.all([app.acquire(), app.acquire()], { concurrency: 2 })
      expect(a!.instance).toEqual(b!.instance)
      yield* a!.release()
      expect(yield* Effect.promise(() => resets(b!.instance.baseUrl))).toBe(0)
    })
  )
})

test("a failed start is retried; three in a row fail the acquire with the last output", async () => {
  const flaky = variant(root, "flaky", (c) => ((c.instance.start = startMode("flaky")), (c.pool = 1)))
  await withApp(flaky, (app) => Effect.flatMap(app.acquire(), (lease) => lease.release()))
  expect(starts(flaky)).toBeGreaterThanOrEqual(2)

  const broken = variant(root, "broken", (c) => ((c.instance.start = startMode("exit3")), (c.pool = 1)))
  const error = await withApp(broken, (app) => Effect.flip(app.acquire()))
  expect(error).toBeInstanceOf(InstanceError)
  expect((error as InstanceError).message).toBe(
    "app fixture-wiki: 3 starts failed in a row; last: start exited with code 3 before printing URL=…; last output: boom: config.yml is missing"
  )
  expect(starts(broken)).toBe(3)
})

test("closing the layer's scope stops instances still starting", async () => {
  const slow = variant(root, "slow", (c) => ((c.instance.start = startMode("hang")), (c.instance.readyTimeoutMs = 30_000)))
  const scope = Effect.runSync(Scope.make())
  await Effect.runPromise(Layer.buildWithScope(CommandApp.layer(slow), scope))
  // Both pool slots are starting (their apps never answer).
  expect(await eventually(() => starts(slow) === 2 && leftovers(slow).length >= 2)).toBe(true)
  const closing = performance.now()
  await Effect.runPromise(Scope.close(scope, Exit.void))
  expect(performance.now() - closing).toBeLessThan(5000)
  expect(leftovers(root)).toEqual([])
  expect(liveInstances()).toBe(0)
})

/** The lines a fixture stop (fixtures/mark.ts) appended to `stops.log` in the pack's folder. */
const stops = (dir: string) => (existsSync(join(dir, "stops.log")) ? readFileSync(join(dir, "stops.log"), "utf8").trim().split("\n") : [])
const marking = (c: any) => (c.instance.stop = ["bun", "../mark.ts", "stops.log", "{instance}"])

test("an instance that announced but is not ready yet is stopped through the pack's stop when the scope closes", async () => {
  // hang: prints URL= of a port nothing listens on, so the instance never becomes ready.
  const slow = variant(root, "announced", (c) => ((c.instance.start = startMode("hang")), (c.instance.readyTimeoutMs = 30_000), marking(c)))
  const scope = Effect.runSync(Scope.make())
  await Effect.runPromise(Layer.buildWithScope(CommandApp.layer(slow), scope))
  expect(await eventually(() => starts(slow) === 2 && leftovers(slow).length >= 2)).toBe(true)
  // Their URL= is their first line: give the pipe time to carry it before the scope closes.
  await Bun.sleep(1000)
  await Effect.runPromise(Scope.close(scope, Exit.void))
  expect(stops(slow)).toHaveLength(2)
  expect(leftovers(root)).toEqual([])
})

test("a pool of one that does not prepare ahead starts one instance per waiting acquire, and none after a release", async () => {
  const dir = variant(root, "ondemand", (c) => ((c.instance.start = startMode("serve")), (c.pool = 3)))
  await Effect.runPromise(
    App.use((app) =>
      Effect.gen(function* () {
        expect(starts(dir)).toBe(0)
        const lease = yield* app.acquire()
        yield* lease.release()
        // instance-per-episode: the released instance is stopped, and nothing takes its place.
        yield* Effect.promise(() => eventually(() => down(lease.instance.baseUrl)))
        yield* Effect.sleep(300)
      })
    ).pipe(Effect.provide(CommandApp.layer(dir, { size: 1, ahead: false })))
  )
  expect(starts(dir)).toBe(1)
})
