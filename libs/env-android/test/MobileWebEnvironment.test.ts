/**
 * The WebDriver path end to end: WebdriverIO → Debian's chromedriver → Chromium in mobile
 * emulation, against a small page served here. The pages report what the browser is (its
 * viewport, touch support, user agent) and which input events arrived, so a tap is shown to
 * be a touch and not a mouse click.
 */
import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, ManagedRuntime } from "effect"
import type { Scope } from "effect"
import { BlobStore, DirectoryBlobStore } from "@core/blobstore"
import type { Action } from "@core/events"
import { targetOf } from "@core/environment"
import type { EnvironmentShape, FullObservation } from "@core/environment"
import { refusal } from "@core/env-web"
import * as MobileWebEnvironment from "../MobileWebEnvironment.ts"

/** A service on this machine that is not the app: every request it receives is a leak. */
const hits: Array<string> = []
const other = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => (hits.push(req.url), new Response("other")) })
const foreign = `http://127.0.0.1:${other.port}`

const html = (title: string, body: string) =>
  new Response(
    `<!doctype html><html><head><title>${title}</title><meta name="viewport" content="width=device-width, initial-scale=1"></head><body>${body}</body></html>`,
    {
      headers: { "content-type": "text/html; charset=utf-8" }
    }
  )

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(req) {
    const url = new URL(req.url)
    switch (url.pathname) {
      case "/":
        return html(
          "Phone",
          `<h1>Phone</h1>
          <input id="facts" aria-label="Facts" readonly>
          <script>document.getElementById('facts').value = 'width ' + innerWidth + ' touch ' + ('ontouchstart' in window) + ' mobile ' + /Mobile/.test(navigator.userAgent) + ' cookie [' + document.cookie + '] stored [' + (localStorage.getItem('k') || '') + ']'
          document.cookie = 'seen=1'; localStorage.setItem('k', 'v')</script>
          <button id="tap" ontouchstart="this.dataset.t = Date.now()" ontouchend="this.textContent = Date.now() - this.dataset.t > 500 ? 'Held by touch' : 'Tapped by touch'">Tap me</button>
          <form onsubmit="event.preventDefault(); document.getElementById('out').textContent = 'sent ' + this.q.value">
            <input name="q" aria-label="Query">
            <select aria-label="Size" onchange="document.getElementById('out').textContent = 'size ' + this.value"><option value="s">Small</option><option value="l">Large</option></select>
          </form>
          <p id="out"></p>
          <a href="/next">Next page</a>
          <p>Blue Mug <span>$12.00</span></p><input type="password" aria-label="PIN" value="4711">
          <div style="height:1500px"></div>
          ${Array.from({ length: 60 }, (_, i) => `<button style="display:block;height:20px;margin:0" onclick="this.textContent = 'Row ${i} pressed'">Row ${i}</button>`).join("")}
          <div style="height:1500px"></div><a href="/">Bottom link</a>`
        )
      case "/next":
        return html("Next", `<h1>Next</h1><a href="/">Home</a>`)
      case "/notes":
        return html("Notes", `<textarea aria-label="Notes" rows="4">alpha beta</textarea>`)
      case "/hostile":
        return html(
          "Hostile",
          `<p id="out"></p><img src="${foreign}/img"><iframe src="${foreign}/frame"></iframe>
          <a href="${foreign}/link">Other link</a> <a href="/redirect">Redirect</a>
          <script>fetch('${foreign}/fetch').catch(() => document.getElementById('out').textContent = 'fetch blocked')</script>`
        )
      case "/redirect":
        return Response.redirect(`${foreign}/redirected`, 302)
      default:
        return new Response("not found", { status: 404 })
    }
  }
})
const origin = `http://127.0.0.1:${server.port}`

const blobDir = mkdtempSync(join(tmpdir(), "core-mobile-web-"))
const runtime = ManagedRuntime.make(DirectoryBlobStore.layer({ dir: blobDir }))
afterAll(async () => {
  await runtime.dispose()
  server.stop(true)
  other.stop(true)
  rmSync(blobDir, { recursive: true, force: true })
})

const withEnv = <A>(
  body: (env: EnvironmentShape) => Effect.Effect<A, unknown, BlobStore | Scope.Scope>,
  options: MobileWebEnvironment.MobileWebOptions = {}
) =>
  runtime.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const env = yield* MobileWebEnvironment.make({ screenshots: "key", ...options })
        return yield* body(env)
      })
    ) as Effect.Effect<A, unknown, BlobStore>
  )

const find = (obs: FullObservation, role: string, name: string) => {
  const e = obs.elements.find((x) => x.role === role && x.name === name)
  if (e === undefined) throw new Error(`no ${role} "${name}" in ${obs.elements.map((x) => `${x.role} "${x.name}"`).join(", ")}`)
  return e
}

test("a reset opens the page in a phone: 412 px wide, touch, a mobile user agent; the blobs are stored", async () => {
  await withEnv((env) =>
    Effect.gen(function* () {
      const obs = yield* env.reset({ taskId: "t", startUrl: `${origin}/` })
      expect(obs.observation).toMatchObject({ url: `${origin}/`, app: null, title: "Phone", error: null })
      const blobs = yield* BlobStore
      const elements = JSON.parse(new TextDecoder().decode(yield* blobs.get(obs.observation.elements!)))
      expect(elements.viewport.width).toBe(412)
      const page = yield* blobs.get(obs.observation.screenshot!)
      // A PNG whose IHDR width is the phone's.
      expect(Array.from(page.slice(1, 4))).toEqual([0x50, 0x4e, 0x47])
      expect(new DataView(page.buffer, page.byteOffset).getUint32(16)).toBe(412)
      // The aria blob is the page's outline in the snapshot's shape, text included, secrets masked.
      const aria = new TextDecoder().decode(yield* blobs.get(obs.observation.aria!))
      expect(aria).toContain('- heading "Phone" [level=1]\n')
      expect(aria).toContain('- button "Tap me"\n')
      expect(aria).toContain("- text: Blue Mug\n- text: $12.00\n")
      expect(aria).toContain('- textbox "PIN": ••••')
      expect(aria).not.toContain("4711")
      expect(find(obs, "button", "Tap me").box!.width).toBeGreaterThan(0)
      // What the page itself saw, in its own text.
      expect(find(obs, "textbox", "Facts").value).toStartWith("width 412 touch true mobile true")
    })
  )
})

test("set-of-marks: the desktop's overlay, drawn through WebDriver, pictured at the phone's size and gone again", async () => {
  await withEnv(
    (env) =>
      Effect.gen(function* () {
        const obs = yield* env.reset({ taskId: "t", startUrl: `${origin}/` })
        const blobs = yield* BlobStore
        const plain = yield* blobs.get(obs.observation.screenshot!)
        const marked = yield* blobs.get(obs.observation.marks!)
        const size = (png: Uint8Array) => [
          new DataView(png.buffer, png.byteOffset).getUint32(16),
          new DataView(png.buffer, png.byteOffset).getUint32(20)
        ]
        expect(Array.from(marked.slice(1, 4))).toEqual([0x50, 0x4e, 0x47])
        expect(size(marked)).toEqual(size(plain))
        expect(Buffer.from(marked).equals(Buffer.from(plain))).toBe(false)
        // The next read of the page finds what the first did: the overlay left nothing behind.
        const again = yield* env.step({ kind: "wait", ms: 0 })
        expect([again.observation.elements, again.observation.aria, again.observation.marks]).toEqual([
          obs.observation.elements,
          obs.observation.aria,
          null
        ])
      }),
    { setOfMarks: true }
  )
})

test("taps and long presses arrive as touches; type with submit, select and key act on the page", async () => {
  await withEnv((env) =>
    Effect.gen(function* () {
      const obs = yield* env.reset({ taskId: "t", startUrl: `${origin}/` })
      const tapped = yield* env.step({ kind: "click", target: targetOf(find(obs, "button", "Tap me")) })
      expect(tapped.observation.error).toBeNull()
      expect(find(tapped, "button", "Tapped by touch").id).toBe(find(obs, "button", "Tap me").id)
      const held = yield* env.step({ kind: "long_press", target: targetOf(find(tapped, "button", "Tapped by touch")) })
      expect(find(held, "button", "Held by touch")).toBeDefined()
      // Taps on links navigate; one row of sixty 20 px buttons far down the page is pressed, not its neighbour.
      const next = yield* env.step({ kind: "click", target: targetOf(find(held, "link", "Next page")) })
      const home = yield* env.step({ kind: "click", target: targetOf(find(next, "link", "Home")) })
      const deep = yield* env.step({ kind: "click", target: targetOf(find(home, "button", "Row 30")) })
      expect(deep.elements.filter((e) => e.name.endsWith("pressed")).map((e) => e.name)).toEqual(["Row 30 pressed"])

      const typed = yield* env.step({ kind: "type", target: targetOf(find(deep, "textbox", "Query")), text: "blue mug", submit: true })
      expect(typed.observation.error).toBeNull()
      expect(find(typed, "textbox", "Query").value).toBe("blue mug")
      const selected = yield* env.step({ kind: "select", target: targetOf(find(typed, "combobox", "Size")), value: "Large" })
      expect(find(selected, "combobox", "Size").value).toBe("l")
      expect(selected.performed).toMatchObject({ kind: "select", value: "l", label: "Large" })
      const missing = yield* env.step({ kind: "select", target: targetOf(find(selected, "combobox", "Size")), value: "Huge" })
      expect(missing.observation.error).toBe('no option "Huge" in the Size')
      const key = yield* env.step({ kind: "key", key: "Tab" })
      expect(key.observation.error).toBeNull()
      const unknownKey = yield* env.step({ kind: "key", key: "Hyper" })
      expect(unknownKey.observation.error).toBe('unknown key "Hyper"')
    })
  )
})

test("a value typed by reference is scrubbed from every read, and a screen that shows it keeps no screenshot", async () => {
  const secret = `key-${crypto.randomUUID()}`
  const seen = await withEnv(
    (env) =>
      Effect.gen(function* () {
        const obs = yield* env.reset({ taskId: "t", startUrl: `${origin}/` })
        // Into a plain text field, whose form echoes it in a paragraph.
        const typed = yield* env.step({
          kind: "type",
          target: targetOf(find(obs, "textbox", "Query")),
          text: "",
          secretEnv: "PHONE_KEY",
          submit: true
        })
        return { error: typed.observation.error, query: find(typed, "textbox", "Query").value, screenshot: typed.observation.screenshot }
      }),
    { readSecret: (name) => (name === "PHONE_KEY" ? secret : undefined) }
  )
  expect(seen.error).toBeNull()
  expect(seen.query).toBe("•".repeat(secret.length))
  expect(seen.screenshot).toBeNull()
  const stored = readdirSync(blobDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), "latin1"))
    .join("\n")
  expect(stored).toContain("sent ")
  expect(stored).not.toContain(secret)
})

test("an insert types at the caret without clearing: at the end of an unfocused field, over a Control+Shift+End selection", async () => {
  await withEnv((env) =>
    Effect.gen(function* () {
      const obs = yield* env.reset({ taskId: "t", startUrl: `${origin}/notes` })
      const notes = targetOf(find(obs, "textbox", "Notes"))
      const steps: ReadonlyArray<readonly [Action, string]> = [
        [{ kind: "type", target: notes, text: " gamma", mode: "insert" }, "alpha beta gamma"],
        [{ kind: "key", key: "Control+Home" }, "alpha beta gamma"],
        [{ kind: "type", target: notes, text: "zero ", mode: "insert" }, "zero alpha beta gamma"],
        [{ kind: "key", key: "Control+Shift+End" }, "zero alpha beta gamma"],
        [{ kind: "type", target: notes, text: "omega", mode: "insert" }, "zero omega"]
      ]
      for (const [action, value] of steps) {
        const after = yield* env.step(action)
        expect([action.kind, after.observation.error, find(after, "textbox", "Notes").value]).toEqual([action.kind, null, value])
      }
    })
  )
})

test("navigate, back, scroll and wait; stale and unknown ids are error observations; a new episode has no history, cookies or storage", async () => {
  await withEnv((env) =>
    Effect.gen(function* () {
      const first = yield* env.reset({ taskId: "t", startUrl: `${origin}/` })
      expect(find(first, "textbox", "Facts").value).toEndWith("cookie [] stored []")
      const noBack = yield* env.step({ kind: "back" })
      expect(noBack.observation.error).toBe("there is no previous page to go back to")
      const next = yield* env.step({ kind: "click", target: targetOf(find(noBack, "link", "Next page")) })
      expect(next.observation.url).toBe(`${origin}/next`)
      const stale = yield* env.step({ kind: "click", target: targetOf(find(noBack, "button", "Tap me")) })
      expect(stale.observation.error).toMatch(/^stale element id e\d+: the element is no longer on the page$/)
      const unknown = yield* env.step({ kind: "click", target: { role: "button", name: "x", elementId: "e999", text: null } })
      expect(unknown.observation.error).toBe("unknown element id e999")
      const back = yield* env.step({ kind: "back" })
      expect(back.observation.url).toBe(`${origin}/`)
      const scrolled = yield* env.step({ kind: "scroll", target: null, direction: "down" })
      expect(find(scrolled, "link", "Bottom link").inViewport || scrolled.observation.error === null).toBe(true)
      const navigated = yield* env.step({ kind: "navigate", url: `${origin}/next` })
      expect(navigated.observation.title).toBe("Next")
      const waited = yield* env.step({ kind: "wait", ms: 10 })
      expect(waited.observation.error).toBeNull()

      const second = yield* env.reset({ taskId: "t", startUrl: `${origin}/` })
      expect(find(second, "textbox", "Facts").value).toEndWith("cookie [] stored []")
      expect((yield* env.step({ kind: "back" })).observation.error).toBe("there is no previous page to go back to")
    })
  )
})

test("the episode stays on its app's origins: navigations elsewhere are refused, the page's requests elsewhere blocked", async () => {
  await withEnv((env) =>
    Effect.gen(function* () {
      const first = yield* env.reset({ taskId: "t", startUrl: `${origin}/hostile` })
      for (const url of ["file:///etc/passwd", `${foreign}/navigate`, "chrome://version"]) {
        const refused = yield* env.step({ kind: "navigate", url })
        expect(refused.observation).toMatchObject({
          error: `navigate refused: ${url} is outside this app's origins (${origin})`,
          url: `${origin}/hostile`
        })
      }
      expect(find(yield* env.step({ kind: "wait", ms: 100 }), "link", "Other link").text).toBe("Other link")
      // Marked for the policies, and refused in the page when tapped anyway: the step stands where it was.
      expect(find(first, "link", "Other link").offsite).toBe(true)
      expect(find(first, "link", "Redirect").offsite).toBeUndefined()
      const link = yield* env.step({ kind: "click", target: targetOf(find(first, "link", "Other link")) })
      expect(link.observation).toMatchObject({ error: refusal(`${foreign}/link`, [origin]), url: `${origin}/hostile`, title: "Hostile" })
      expect(link.elements.length).toBeGreaterThan(0)
      const back = yield* env.step({ kind: "navigate", url: `${origin}/hostile` })
      expect(back.observation).toMatchObject({ error: null, url: `${origin}/hostile` })
      expect(back.aria).toContain("fetch blocked")
      // A redirect off the app is blocked by the browser, then undone: back on the page it left.
      const redirect = yield* env.step({ kind: "click", target: targetOf(find(back, "link", "Redirect")) })
      expect(redirect.observation.error).toStartWith("navigate refused: ")
      expect(redirect.observation).toMatchObject({ url: `${origin}/hostile`, title: "Hostile" })
      expect(redirect.elements.length).toBeGreaterThan(0)
      expect(hits).toEqual([])
    })
  )
})

test("home and open_app are rejected on mobile web; answer and status end the episode", async () => {
  await withEnv((env) =>
    Effect.gen(function* () {
      yield* env.reset({ taskId: "t", startUrl: `${origin}/` })
      for (const action of [{ kind: "home" }, { kind: "open_app", app: "com.android.chrome" }] satisfies ReadonlyArray<Action>) {
        expect((yield* env.step(action)).observation.error).toBe(`${action.kind} is not available on the mobile-web platform`)
      }
      const answered = yield* env.step({ kind: "answer", text: "42" })
      expect(answered.done).toBe(true)
      const after = yield* env.step({ kind: "click", target: null })
      expect(after.observation.error).toBe("the episode has ended (answer or status was given)")
    })
  )
})

test("a chromedriver that does not exist is one clear InfraError, not a hang", async () => {
  const error = await runtime.runPromise(
    Effect.flip(
      Effect.scoped(
        Effect.gen(function* () {
          const env = yield* MobileWebEnvironment.make({ chromedriver: "/nonexistent/chromedriver" })
          return yield* env.reset({ taskId: "t", startUrl: `${origin}/` })
        })
      )
    )
  )
  expect(error._tag).toBe("InfraError")
  expect(error.message).toMatch(
    /^environment infrastructure error: cannot start a mobile-web session \(chromedriver \/nonexistent\/chromedriver\): .+$/
  )
  expect(error.message).not.toContain("\n")
})
