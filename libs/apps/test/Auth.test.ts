/**
 * An app pack's `auth` on the fixture pack fixtures/auth, whose every page needs a session:
 * the log-in is checked before any instance starts — it may type only variables the user
 * allowed the pack, and never one CORE reads — played in each episode's own browser context
 * before its start page, whatever the isolation, and nothing of it — step, page or password —
 * is observed into the blob store. Real Chromium, real instances.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime } from "effect"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DirectoryBlobStore } from "@core/blobstore"
import { BrowserPool, WebEnvironment } from "@core/env-web"
import { targetOf } from "@core/environment"
import type { EpisodeSource } from "@core/environment"
import { App, CommandApp, loadAuth, loadLogin, loadPack, packRunApp, packRunTask, secretRefusal, stopAllInstances } from "../mod.ts"
import type { Isolation, SecretRule } from "../mod.ts"
import { fixtureRoot, leftovers, removeRoot, variant } from "./support.ts"

const root = fixtureRoot("auth")
const password = `pw-${crypto.randomUUID()}`
// The app's own user store: what the log-in must match, never part of the pack's configuration.
writeFileSync(join(root, "auth", "password.txt"), password)
const readSecret = (name: string) => (name === "NOTES_FIXTURE_PASSWORD" ? password : undefined)
/** What the user grants, per pack name; `own`: the variables CORE reads, with what for. */
const ruleOf = (grants: Record<string, ReadonlyArray<string>>, own: Record<string, string> = {}): SecretRule => ({
  allowed: (pack) => new Set(grants[pack] ?? []),
  coreOwn: (variable) => own[variable]
})
const allowed = ruleOf({ "fixture-notes": ["NOTES_FIXTURE_PASSWORD"] })

afterEach(async () => {
  await Effect.runPromise(stopAllInstances())
  expect(leftovers(root)).toEqual([])
})
// One browser for every episode here, as a run has: each episode still gets a fresh context.
const browser = ManagedRuntime.make(BrowserPool.layer())
afterAll(async () => {
  await browser.dispose()
  removeRoot(root)
})

const load = (dir: string) => Effect.runPromise(loadPack(dir))
const authError = async (dir: string, read: (name: string) => string | undefined, rule: SecretRule = allowed) =>
  (await Effect.runPromise(Effect.flip(loadAuth(await load(dir), rule, read)))).message

describe("loading a pack's auth", () => {
  test("given a log-in typing a secret by name, when its variable is unset, then one line names the file, the step and the variable", async () => {
    const dir = join(root, "auth")
    expect((await Effect.runPromise(loadAuth(await load(dir), allowed, readSecret)))?.steps.map((s) => s.kind)).toEqual([
      "type",
      "type",
      "click"
    ])
    expect(await authError(dir, () => undefined)).toBe(
      `${dir}/auth.steps.json: steps[1].secretEnv: the environment variable NOTES_FIXTURE_PASSWORD is not set: the log-in types its value`
    )
  })

  test("given a log-in that ends the episode or a pack that is not web, when loaded, then each is one line", async () => {
    const ending = variant(root, "ending", () => undefined, {
      base: "auth",
      files: {
        "auth.steps.json": JSON.stringify({
          version: 1,
          steps: [
            { kind: "click", target: { role: "button", name: "Sign in" } },
            { kind: "status", status: "complete" }
          ]
        })
      }
    })
    expect(await authError(ending, readSecret)).toBe(
      `${ending}/auth.steps.json: steps[1].kind: a log-in comes before the episode and does not end it: no 'status' here`
    )
    const web = await load(join(root, "auth"))
    const phone = { ...web, config: { ...web.config, platform: "android" as const } }
    const refused = (await Effect.runPromise(Effect.flip(loadAuth(phone, allowed, readSecret)))).message
    expect(refused).toBe(
      `${join(root, "auth")}/core-app.json: auth: only for platform 'web' (a log-in is played in the episode's browser); this pack is 'android'`
    )
  })
})

describe("which secrets a pack's log-in may type", () => {
  const dir = () => join(root, "auth")
  const step = (d: string) => `${d}/auth.steps.json: steps[1].secretEnv`

  test("given a variable set but not allowed, or allowed only for another pack, when loaded, then one line names it and both ways to allow it", async () => {
    const refusal = `${step(dir())}: the pack fixture-notes may not type NOTES_FIXTURE_PASSWORD unless you allow it: --allow-secret NOTES_FIXTURE_PASSWORD, or "packs": { "fixture-notes": { "allowSecrets": ["NOTES_FIXTURE_PASSWORD"] } } in core.config.json`
    expect(await authError(dir(), readSecret, ruleOf({}))).toBe(refusal)
    expect(await authError(dir(), readSecret, ruleOf({ "other-notes": ["NOTES_FIXTURE_PASSWORD"] }))).toBe(refusal)
  })

  test("given a variable CORE reads, when the user allowed it too, then it is refused in one line saying whose it is, set or not", async () => {
    const own = { NOTES_FIXTURE_PASSWORD: "the secret models.apiKeyEnv names" }
    const rule = ruleOf({ "fixture-notes": ["NOTES_FIXTURE_PASSWORD"] }, own)
    const refusal = `${step(dir())}: NOTES_FIXTURE_PASSWORD is CORE's own (the secret models.apiKeyEnv names): a pack may never type it, even when allowed`
    expect(await authError(dir(), readSecret, rule)).toBe(refusal)
    // Unset, it is still CORE's: "set it" would be the wrong advice.
    expect(await authError(dir(), () => undefined, rule)).toBe(refusal)
  })

  test("the rule alone: allowed per pack, CORE's own refused whatever is allowed", () => {
    const rule = ruleOf({ notes: ["NOTES_PASSWORD", "OPENAI_API_KEY"] }, { OPENAI_API_KEY: "the secret models.apiKeyEnv names" })
    expect(secretRefusal(rule, "notes", "NOTES_PASSWORD")).toBeUndefined()
    expect(secretRefusal(rule, "wiki", "NOTES_PASSWORD")).toStartWith("the pack wiki may not type NOTES_PASSWORD")
    expect(secretRefusal(rule, "notes", "OPENAI_API_KEY")).toStartWith("OPENAI_API_KEY is CORE's own")
  })
})

describe("what a pack's episodes may type by reference, beyond its log-in", () => {
  const token = `tok-${crypto.randomUUID()}`
  // Both set in the environment: only the rule decides which the pack's episodes get.
  const readBoth = (name: string) => (name === "NOTES_FIXTURE_TOKEN" ? token : readSecret(name))

  test("given a task's step file typing a variable the pack may not type, when the pack's secrets load, then one line names the step", async () => {
    const leak = {
      version: 1,
      steps: [
        { kind: "type", target: { role: "textbox", name: "User" }, secretEnv: "NOTES_FIXTURE_TOKEN" },
        { kind: "status", status: "complete" }
      ]
    }
    const dir = variant(root, "leaky-demo", () => undefined, {
      base: "auth",
      files: { "demos/n-open-groceries.steps.json": JSON.stringify(leak) }
    })
    const refused = (await Effect.runPromise(Effect.flip(loadLogin(await load(dir), allowed, readBoth)))).message
    expect(refused).toBe(
      `${dir}/demos/n-open-groceries.steps.json: steps[0].secretEnv: the pack fixture-notes may not type NOTES_FIXTURE_TOKEN unless you allow it: --allow-secret NOTES_FIXTURE_TOKEN, or "packs": { "fixture-notes": { "allowSecrets": ["NOTES_FIXTURE_TOKEN"] } } in core.config.json`
    )
    const login = await Effect.runPromise(loadLogin(await load(join(root, "auth")), allowed, readBoth))
    expect([login.readSecret("NOTES_FIXTURE_PASSWORD"), login.readSecret("NOTES_FIXTURE_TOKEN")]).toEqual([password, undefined])
  })

  test("given an episode of the pack, when a policy types a variable the pack may not type, then nothing is typed; an allowed one is", async () => {
    // No log-in: the episode starts on the sign-in form, whose fields take what is typed.
    const dir = variant(root, "no-login", (c) => delete c.auth, { base: "auth" })
    const typed = await browser.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const pack = yield* loadPack(dir)
          const run = packRunApp(pack, yield* App, yield* loadLogin(pack, allowed, readBoth))
          // The environment's own reader would give both: the episodes' reader is the one that counts.
          const env = yield* WebEnvironment.make({ episodes: run.episodes, prepareAhead: false, screenshots: "none", readSecret: readBoth })
          const task = packRunTask(pack, pack.tasks[0]!)
          const first = yield* env.reset({ ...task.start, taskId: task.id })
          const field = (name: string) => targetOf(first.elements.find((e) => e.name === name)!)
          const refused = yield* env.step({ kind: "type", target: field("User"), text: "", secretEnv: "NOTES_FIXTURE_TOKEN" })
          const allowedOne = yield* env.step({ kind: "type", target: field("Password"), text: "", secretEnv: "NOTES_FIXTURE_PASSWORD" })
          yield* env.close()
          return {
            refused: refused.observation.error,
            user: refused.elements.find((e) => e.name === "User")?.value,
            allowed: allowedOne.observation.error
          }
        })
      ).pipe(
        Effect.provide(CommandApp.layer(dir)),
        Effect.provide(DirectoryBlobStore.layer({ dir: mkdtempSync(join(tmpdir(), "core-auth-blobs-")) }))
      )
    )
    expect(typed.refused).toBe("type: the secret variable NOTES_FIXTURE_TOKEN is not set")
    expect(typed.user ?? "").toBe("")
    expect(typed.allowed).toBeNull()
  }, 30_000)
})

/** Every file under `dir`, as text: what a blob store holds. */
const everything = (dir: string): string =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), "latin1"))
    .join("\n")

describe("every episode logs in first, in its own browser context", () => {
  const isolations: ReadonlyArray<[Isolation, ReadonlyArray<number>]> = [
    // A fresh instance each time: its first login.
    ["instance-per-episode", [1, 1]],
    // The same instance: its earlier session does not carry over to the episode's fresh context.
    ["reset-between-episodes", [1, 2]],
    ["shared-readonly", [1, 2]]
  ]
  for (const [isolation, logins] of isolations) {
    test(`given ${isolation}, when two episodes start on a page behind the log-in, then each logs in and starts there, and no blob holds the log-in`, async () => {
      const dir = variant(root, isolation, (c) => (c.isolation = isolation), { base: "auth" })
      const blobs = mkdtempSync(join(tmpdir(), "core-auth-blobs-"))
      try {
        const seen = await browser.runPromise(
          Effect.scoped(
            Effect.gen(function* () {
              const pack = yield* loadPack(dir)
              const run = packRunApp(pack, yield* App, yield* loadLogin(pack, allowed, readSecret))
              const bases: Array<string> = []
              const episodes: EpisodeSource = {
                ...run.episodes,
                open: (...a) => run.episodes.open(...a).then((o) => (bases.push(o.startUrl), o))
              }
              const env = yield* WebEnvironment.make({ episodes, prepareAhead: false, screenshots: "key", readSecret })
              const task = packRunTask(pack, pack.tasks.find((t) => t.id === "n-back-to-notes")!)
              const seen: Array<{ title: string | null; path: string; firstId: string | undefined; logins: number }> = []
              for (let i = 0; i < 2; i++) {
                const first = yield* env.reset({ ...task.start, taskId: task.id })
                const state = yield* Effect.promise(() =>
                  fetch(new URL("/__state", bases[i]!)).then((r) => r.json() as Promise<{ logins: number }>)
                )
                seen.push({
                  title: first.view.title,
                  path: new URL(first.observation.url!).pathname,
                  firstId: first.elements[0]?.id,
                  logins: state.logins
                })
                yield* env.close()
              }
              return seen
            })
          ).pipe(Effect.provide(Layer.merge(CommandApp.layer(dir), DirectoryBlobStore.layer({ dir: blobs }))))
        )
        // The episode's ids are numbered as if there had been no log-in.
        expect(seen).toEqual(logins.map((n) => ({ title: "Chores", path: "/notes/Chores", firstId: "e1", logins: n })))
        const stored = everything(blobs)
        expect(stored).toContain("Water the plants")
        for (const secretOrLogin of [password, "alice", "Sign in"]) expect(stored).not.toContain(secretOrLogin)
      } finally {
        rmSync(blobs, { recursive: true, force: true })
      }
    }, 30_000)
  }
})
