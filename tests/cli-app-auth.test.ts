/**
 * An app pack's `auth` as a user meets it, on libs/apps/test/fixtures/auth (every page needs
 * a session): `record --app --from` logs in first and writes a demo of the task alone; an
 * unset secret variable and a log-in step that cannot be played are one `error:` line each,
 * and nothing of the pack is left running after any of them.
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
afterAll(() => removeRoot(root))

const record = (dir: string, out: string, env: Record<string, string> = withSecret) =>
  core(
    [
      "record",
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
  const [unset, failing] = await Promise.all([record(pack, join(root, "unset"), {}), record(broken, join(root, "failing"))])
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
