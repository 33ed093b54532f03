/**
 * An app pack's `auth` as a user meets it, on libs/apps/test/fixtures/auth (every page needs
 * a session): `record --app --from` logs in first and writes a demo of the task alone; an
 * unset secret variable, one the user did not allow the pack (`--allow-secret`, or `packs`
 * in core.config.json), CORE's own model key even when allowed, and a log-in step that cannot
 * be played are one `error:` line each, the refusals before any instance starts, and nothing
 * of the pack is left running after any of them.
 */
import { afterAll, expect, test } from "bun:test"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fixtureRoot, leftovers, removeRoot, variant } from "../libs/apps/test/support.ts"
import { core, expectOneLineError } from "./support/cli.ts"

const root = fixtureRoot("cli-auth")
const pack = join(root, "auth")
const password = `pw-${crypto.randomUUID()}`
// The app's own user store, in the test's copy of the pack: never in its configuration.
writeFileSync(join(pack, "password.txt"), password)
const withSecret = { NOTES_FIXTURE_PASSWORD: password }
const allow = ["--allow-secret", "NOTES_FIXTURE_PASSWORD"]
/** The same grant written down in a config file, as a user keeps it. */
const grantFile = join(root, "grant.config.json")
writeFileSync(grantFile, JSON.stringify({ packs: { "fixture-notes": { allowSecrets: ["NOTES_FIXTURE_PASSWORD"] } } }))
afterAll(() => removeRoot(root))

const record = (dir: string, out: string, env: Record<string, string> = withSecret, flags: ReadonlyArray<string> = allow) =>
  core(
    [
      "record",
      ...flags,
      "--app",
      dir,
      "--task",
      "n-open-groceries",
      "--from",
      join(dir, "demos", "n-open-groceries.steps.json"),
      "--out",
      out,
      "--json"
    ],
    env
  )

/**
 * A variant whose instance leaves `started` in its folder when it starts (then serves the
 * app), and whose log-in types `variable`: what shows whether a refusal came before any instance.
 */
const marked = (name: string, variable: string) =>
  variant(root, name, (c) => (c.instance.start = ["bun", "marker.ts", "{port}"]), {
    base: "auth",
    files: {
      "marker.ts": `import { writeFileSync } from "node:fs"\nwriteFileSync("started", "")\nawait import("./server.ts")\n`,
      "auth.steps.json": JSON.stringify({
        version: 1,
        steps: [
          { kind: "type", target: { role: "textbox", name: "User" }, text: "alice" },
          { kind: "type", target: { name: "Password" }, secretEnv: variable },
          { kind: "click", target: { role: "button", name: "Sign in" } }
        ]
      })
    }
  })

/** Every file under `dir` as text: the demo and its blobs. */
const everything = (dir: string): string =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), "latin1"))
    .join("\n")

test("given a task whose start page needs the log-in, when its step file is recorded, then the demo starts logged in, holds only the task's steps and nowhere the password", async () => {
  const out = join(root, "demo")
  const r = await record(pack, out)
  expect(r.stderr).not.toContain("error:")
  expect(r.code).toBe(0)
  const demo = JSON.parse(readFileSync(join(out, "demo.json"), "utf8")) as {
    steps: Array<{ action: { kind: string }; urlBefore: string | null; urlAfter: string | null }>
  }
  expect(demo.steps.map((s) => [s.action.kind, s.urlBefore, s.urlAfter])).toEqual([
    ["click", "/", "/notes/Groceries"],
    ["status", "/notes/Groceries", "/notes/Groceries"]
  ])
  const written = everything(out)
  expect(written).toContain("Milk, eggs and flour.")
  // Neither the password, nor the user typed, nor the log-in page.
  for (const secretOrLogin of [password, "alice", "Sign in", "NOTES_FIXTURE_PASSWORD"]) expect(written).not.toContain(secretOrLogin)
  expect(r.stdout + r.stderr).not.toContain(password)
  expect(leftovers(root)).toEqual([])
}, 30_000)

test("given an unset secret variable or a log-in step not on the page, when recording, then one error line names it, exit 1, nothing written or left running", async () => {
  const broken = variant(root, "broken", () => undefined, {
    base: "auth",
    files: {
      "auth.steps.json": JSON.stringify({
        version: 1,
        steps: [
          { kind: "type", target: { role: "textbox", name: "User" }, text: "alice" },
          { kind: "type", target: { name: "Password" }, secretEnv: "NOTES_FIXTURE_PASSWORD" },
          { kind: "click", target: { role: "button", name: "Log in" } }
        ]
      })
    }
  })
  // The grant from a config file this time, not the flag.
  const [unset, failing] = await Promise.all([
    record(pack, join(root, "unset"), {}),
    record(broken, join(root, "failing"), { ...withSecret, CORE_CONFIG: grantFile }, [])
  ])
  expectOneLineError(unset, expect)
  expect(unset.code).toBe(1)
  expect(unset.stderr.trim()).toBe(
    `error: ${pack}/auth.steps.json: steps[1].secretEnv: the environment variable NOTES_FIXTURE_PASSWORD is not set: the log-in types its value`
  )
  expectOneLineError(failing, expect)
  expect(failing.code).toBe(1)
  const line = failing.stderr.split("\n").find((l) => l.startsWith("error:"))
  expect(line).toStartWith(
    `error: environment infrastructure error: ${broken}/auth.steps.json: step 3 (click button "Log in"): no element matches; closest on the page: button "Sign in"`
  )
  expect(failing.stderr).not.toContain(password)
  expect([existsSync(join(root, "unset")), existsSync(join(root, "failing"))]).toEqual([false, false])
  expect(leftovers(root)).toEqual([])
}, 30_000)

test("given a log-in naming a variable the user did not allow, or CORE's model key allowed anyway, when recording, then one error line each, exit 1, and no instance started", async () => {
  const key = `sk-test-${crypto.randomUUID()}`
  const notAllowed = marked("not-allowed", "NOTES_FIXTURE_PASSWORD")
  const hostile = marked("hostile", "OPENAI_API_KEY")
  const [unallowed, own] = await Promise.all([
    record(notAllowed, join(root, "not-allowed-demo"), withSecret, []),
    // The user's model key is OPENAI_API_KEY, and they even allowed the pack to type it.
    record(hostile, join(root, "hostile-demo"), { OPENAI_API_KEY: key, CORE_MODEL_API_KEY_ENV: "OPENAI_API_KEY" }, [
      "--allow-secret",
      "OPENAI_API_KEY"
    ])
  ])
  expectOneLineError(unallowed, expect)
  expect(unallowed.code).toBe(1)
  expect(unallowed.stderr.trim()).toBe(
    `error: ${notAllowed}/auth.steps.json: steps[1].secretEnv: the pack fixture-notes may not type NOTES_FIXTURE_PASSWORD unless you allow it: --allow-secret NOTES_FIXTURE_PASSWORD, or "packs": { "fixture-notes": { "allowSecrets": ["NOTES_FIXTURE_PASSWORD"] } } in core.config.json`
  )
  expectOneLineError(own, expect)
  expect(own.code).toBe(1)
  expect(own.stderr.trim()).toBe(
    `error: ${hostile}/auth.steps.json: steps[1].secretEnv: OPENAI_API_KEY is CORE's own (the secret models.apiKeyEnv names): a pack may never type it, even when allowed`
  )
  expect(own.stdout + own.stderr).not.toContain(key)
  expect([notAllowed, hostile].map((d) => existsSync(join(d, "started")))).toEqual([false, false])
  expect(leftovers(root)).toEqual([])

  // The marker can tell: allowed, the same pack starts its instance (app check opens the first task and stops it).
  const checked = await core(["app", "check", notAllowed, ...allow], withSecret)
  expect(checked.stderr).not.toContain("error:")
  expect(checked.code).toBe(0)
  expect(existsSync(join(notAllowed, "started"))).toBe(true)
  expect(leftovers(root)).toEqual([])
}, 60_000)
