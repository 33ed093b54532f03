/**
 * A secret typed by reference into a field that is no password field, in a real Chromium: the
 * field's value, a page echoing it (as typed, in a paragraph, a heading, a title, a link and
 * its URL) and a log-in's user echoed after it are masked in every element, aria snapshot,
 * title and URL, nowhere in the blob store, and painted over in the screenshot and the
 * set-of-marks image.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { ElementInfo, FullObservation, PreludePage } from "@core/environment"
import { BrowserPool } from "../BrowserPool.ts"
import { find, startRuntime, target } from "./fixtures.ts"

// A quote and a colon: the aria snapshot escapes such a text, a URL encodes it.
const KEY = `sk:"Qv7-${crypto.randomUUID().slice(0, 8)}"`
const USER = `agent-${crypto.randomUUID().slice(0, 8)}`
const KEY_VAR = "CORE_TEST_SCRUB_KEY"
const USER_VAR = "CORE_TEST_SCRUB_USER"
const secrets: Record<string, string> = { [KEY_VAR]: KEY, [USER_VAR]: USER }
const readSecret = (name: string) => secrets[name]

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;")
const html = (title: string, body: string, headers: Record<string, string> = {}) =>
  new Response(`<!doctype html><title>${esc(title)}</title><body style="margin:0;font:16px monospace">${body}`, {
    headers: { "content-type": "text/html; charset=utf-8", ...headers }
  })
const userOf = (req: Request) => decodeURIComponent(/(?:^|;\s*)user=([^;]*)/.exec(req.headers.get("cookie") ?? "")?.[1] ?? "")

// Fixed boxes: the test reads the screenshot's pixels where the field and the echo are.
const keyPage = (req: Request) =>
  html(
    "Keys",
    `<p style="position:absolute;left:20px;top:0;margin:0">Signed in as ${esc(userOf(req))}</p>
    <form method="post" action="/saved" novalidate style="position:absolute;left:20px;top:40px;margin:0">
    <label>API key <input type="text" name="key" style="width:300px;height:30px"></label>
    <label>Email <input type="email" name="email"></label><button>Save</button></form>
    <p id="echo" style="position:absolute;left:20px;top:120px;margin:0"></p>
    <script>document.querySelector("[name=key]").addEventListener("input", (e) => { document.getElementById("echo").textContent = "Your key " + e.target.value })</script>`
  )

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: async (req) => {
    const url = new URL(req.url)
    if (url.pathname === "/login" && req.method === "POST") {
      const user = String((await req.formData()).get("user"))
      return new Response(null, { status: 303, headers: { location: "/", "set-cookie": `user=${encodeURIComponent(user)}; Path=/` } })
    }
    if (url.pathname === "/login")
      return html("Sign in", `<form method="post"><label>User <input name="user"></label><button>Sign in</button></form>`)
    if (url.pathname === "/saved") {
      const key = String((await req.formData()).get("key"))
      return html(`Saved ${key}`, `<h1>Saved ${esc(key)}</h1><a href="/use?key=${encodeURIComponent(key)}">Use ${esc(key)}</a>`)
    }
    if (url.pathname === "/use") return html("Using", `<p>Using the key</p>`)
    return keyPage(req)
  }
})
const rt = startRuntime()
afterAll(async () => {
  await rt.dispose()
  server.stop(true)
})
const base = `http://127.0.0.1:${server.port}`

/** Every form a read could hold the secrets in. */
const forms = [KEY, USER, JSON.stringify(KEY).slice(1, -1), encodeURIComponent(KEY), new URLSearchParams({ k: KEY }).toString().slice(2)]

const expectNoSecret = (obs: FullObservation) => {
  const texts = [obs.aria, obs.view.text, obs.observation.url, obs.observation.title ?? "", JSON.stringify(obs.elements)]
  for (const text of texts) for (const form of forms) expect(text).not.toContain(form)
}

/** The distinct colours of a box of a PNG (inset by 2 px, off the border), read back through Chromium's decoder. */
const colours = (png: Uint8Array, box: { x: number; y: number; width: number; height: number }) =>
  rt.runtime.runPromise(
    Effect.gen(function* () {
      const lease = yield* (yield* BrowserPool).acquire()
      return yield* Effect.promise(() =>
        lease.page.evaluate(
          async ({ src, box }) => {
            const doc: any = (globalThis as any).document
            const img = doc.createElement("img")
            img.src = src
            await img.decode()
            const canvas = doc.createElement("canvas")
            canvas.width = img.naturalWidth
            canvas.height = img.naturalHeight
            const ctx = canvas.getContext("2d")
            ctx.drawImage(img, 0, 0)
            const data = ctx.getImageData(box.x + 2, box.y + 2, box.width - 4, box.height - 4).data
            const seen = new Set<string>()
            for (let i = 0; i < data.length; i += 4) seen.add(`${data[i]},${data[i + 1]},${data[i + 2]}`)
            return [...seen]
          },
          { src: `data:image/png;base64,${Buffer.from(png).toString("base64")}`, box }
        )
      ).pipe(Effect.ensuring(lease.release))
    })
  )
const MAGENTA = ["255,0,255"]

const boxOf = (e: ElementInfo) => {
  if (e.box === null) throw new Error(`${e.role} "${e.name}" has no box`)
  return e.box
}

/** Every file of the blob store as bytes read as latin1: a value stored in any blob shows here. */
const storedBytes = () =>
  readdirSync(rt.dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), "latin1"))
    .join("\n")

const logIn = {
  startUrl: `${base}/login`,
  play: (page: PreludePage) =>
    Effect.gen(function* () {
      const user = (yield* page.elements).find((e) => e.name === "User")!
      expect(yield* page.act({ kind: "type", target: target(user), text: "", secretEnv: USER_VAR, submit: true })).toBeNull()
    })
}

describe("a secret typed by reference into a field that is no password field", () => {
  test(
    "is masked in every element, aria snapshot, title and URL, in no blob, and painted over in screenshots",
    () =>
      rt.withEnv({ screenshots: "all", setOfMarks: true, settleMs: 300, readSecret, secretEnvs: [KEY_VAR] }, (env) =>
        Effect.gen(function* () {
          const first = yield* env.reset({ taskId: "keys", startUrl: `${base}/`, prelude: logIn })
          // The log-in's user, echoed on the start page.
          expect(first.aria).toContain(`Signed in as ${"•".repeat(USER.length)}`)
          expectNoSecret(first)
          const field = find(first, "textbox", "API key")
          const typed = yield* env.step({ kind: "type", target: target(field), text: "", secretEnv: KEY_VAR })
          expect(typed.observation.error).toBeNull()
          expect(typed.performed).toEqual({ kind: "type", target: target(field), text: "", secretEnv: KEY_VAR })
          expect(find(typed, "textbox", "API key").value).toBe("•".repeat(KEY.length))
          expect(typed.aria).toContain(`Your key ${"•".repeat(KEY.length)}`)
          expectNoSecret(typed)
          // The field and the paragraph echoing it, in the screenshot and in the set-of-marks image.
          const echo = { x: 20, y: 120, width: 120, height: 16 }
          for (const png of [typed.screenshot!, typed.marks!]) {
            expect(yield* Effect.promise(() => colours(png, boxOf(find(typed, "textbox", "API key"))))).toEqual(MAGENTA)
            expect(yield* Effect.promise(() => colours(png, echo))).toEqual(MAGENTA)
          }
          // A field with no secret is pictured as it is.
          expect(yield* Effect.promise(() => colours(typed.screenshot!, boxOf(find(typed, "textbox", "Email"))))).not.toEqual(MAGENTA)

          // The configured secret's value typed in clear, into an email field: recorded by reference, masked alike.
          const email = find(typed, "textbox", "Email")
          const inClear = yield* env.step({ kind: "type", target: target(email), text: KEY })
          expect(inClear.performed).toEqual({ kind: "type", target: target(email), text: "", secretEnv: KEY_VAR })
          expectNoSecret(inClear)

          // Gone from the page it was typed on: still masked where the app echoes it, in a heading, the title, a link and its URL.
          const saved = yield* env.step({ kind: "click", target: target(find(inClear, "button", "Save")) })
          expect(saved.observation.title).toBe(`Saved ${"•".repeat(KEY.length)}`)
          expectNoSecret(saved)
          const link = find(saved, "link", `Use ${"•".repeat(KEY.length)}`)
          expect(yield* Effect.promise(() => colours(saved.screenshot!, boxOf(link)))).toEqual(MAGENTA)
          const used = yield* env.step({ kind: "click", target: target(link) })
          expect(used.observation.url).toStartWith(`${base}/use?key=`)
          expectNoSecret(used)

          const stored = storedBytes()
          for (const form of forms) expect(stored.includes(form)).toBe(false)
        })
      ),
    60_000
  )
})
