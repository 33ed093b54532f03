/**
 * Passwords in a real Chromium: a `type` by reference types its variable's value (the page
 * reads it back, and the observation masks it there: the scrub masks only the exact value),
 * a variable that is not set is an error observation, and a `type` into a password field is
 * reported sealed for the record — by reference when a configured secret holds the text,
 * masked otherwise — while other fields record what was typed.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { find, startRuntime, target } from "./fixtures.ts"

const PASSWORD = "s3cret-Pa55"
const VAR = "CORE_TEST_SHOP_PASSWORD"
const page = `<!doctype html><title>Login</title><form onsubmit="event.preventDefault(); document.getElementById('out').textContent = 'got ' + this.pw.value">
  <label>User <input name="user"></label><label>Password <input type="password" name="pw"></label>
  <button type="submit">Sign in</button></form><p id="out"></p>`
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(page, { headers: { "content-type": "text/html" } }) })
const rt = startRuntime()
process.env[VAR] = PASSWORD
afterAll(async () => {
  delete process.env[VAR]
  await rt.dispose()
  server.stop(true)
})
const task = { taskId: "login", startUrl: `http://127.0.0.1:${server.port}/login` }

describe("typing passwords in the web environment", () => {
  test(
    "a type by reference types the variable's value; an unset variable is an error observation",
    () =>
      rt.withEnv({ screenshots: "none", settleMs: 300 }, (env) =>
        Effect.gen(function* () {
          const first = yield* env.reset(task)
          const field = target(find(first, "textbox", "Password"))
          const missing = yield* env.step({ kind: "type", target: field, text: "", secretEnv: "CORE_TEST_UNSET_PASSWORD" })
          expect(missing.observation.error).toBe("type: the secret variable CORE_TEST_UNSET_PASSWORD is not set")
          const typed = yield* env.step({ kind: "type", target: field, text: "", secretEnv: VAR, submit: true })
          expect(typed.observation.error).toBeNull()
          expect(typed.aria).toContain(`got ${"•".repeat(PASSWORD.length)}`)
          expect(typed.aria).not.toContain(PASSWORD)
          expect(typed.performed).toEqual({ kind: "type", target: field, text: "", secretEnv: VAR, submit: true })
        })
      ),
    60_000
  )

  test(
    "a policy's password is recorded by reference or masked, never in clear",
    () =>
      rt.withEnv({ screenshots: "none", settleMs: 300, secretEnvs: [VAR] }, (env) =>
        Effect.gen(function* () {
          const first = yield* env.reset(task)
          const field = target(find(first, "textbox", "Password"))
          const known = yield* env.step({ kind: "type", target: field, text: PASSWORD, submit: true })
          // Recorded by reference, so as secret as a value typed so: masked where the page echoes it.
          expect(known.aria).toContain(`got ${"•".repeat(PASSWORD.length)}`)
          expect(known.performed).toEqual({ kind: "type", target: field, text: "", submit: true, secretEnv: VAR })
          const other = yield* env.step({ kind: "type", target: field, text: "guess1" })
          expect(other.performed).toEqual({ kind: "type", target: field, text: "••••••" })
          const user = yield* env.step({ kind: "type", target: target(find(other, "textbox", "User")), text: "alice" })
          expect(user.performed).toBeUndefined()
        })
      ),
    60_000
  )
})
