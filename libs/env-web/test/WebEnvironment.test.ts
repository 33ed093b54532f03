import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import { BlobStore } from "@core/blobstore"
import { find, startRuntime, startSite, target } from "./fixtures.ts"

const site = startSite()
const rt = startRuntime()
afterAll(async () => {
  await rt.dispose()
  site.stop()
})

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

test("reset observes roles, names and values, with every blob hash stored", async () => {
  await rt.withEnv({}, (env) =>
    Effect.gen(function* () {
      const obs = yield* env.reset({ taskId: "t", startUrl: site.url("/form") })
      expect(obs.observation).toMatchObject({ url: site.url("/form"), app: null, title: "Form", truncated: false, error: null })
      expect(find(obs, "textbox", "Search query").editable).toBe(true)
      expect(find(obs, "textbox", "Email").value).toBe("a@b.c")
      expect(find(obs, "textbox", "Secret").value).toBe("•••••••")
      expect(find(obs, "textbox", "Nickname").value).toBe("")
      expect(find(obs, "combobox", "Color")).toMatchObject({ value: "r", text: "Red" })
      expect(find(obs, "checkbox", "I agree").checked).toBe(false)
      expect(find(obs, "button", "Disabled").enabled).toBe(false)
      expect(find(obs, "button", "Fake button").visible).toBe(true)
      const press = find(obs, "button", "Press me")
      expect(press.box!.width).toBeGreaterThan(0)
      expect(obs.view.text).toContain(`[${press.id}] button "Press me"`)
      const blobs = yield* BlobStore
      for (const hash of [obs.observation.screenshot, obs.observation.elements, obs.observation.aria]) {
        expect(yield* blobs.has(hash!)).toBe(true)
      }
      const aria = decode(yield* blobs.get(obs.observation.aria!))
      expect(aria).toContain(`button "Press me"`)
      expect(aria).toContain(`textbox "Secret": •••••••`)
      expect(aria).not.toContain("hunter2")
      expect(JSON.parse(decode(yield* blobs.get(obs.observation.elements!))).elements).toHaveLength(obs.elements.length)
      const png = yield* blobs.get(obs.observation.screenshot!)
      expect(Array.from(png.slice(1, 4))).toEqual([0x50, 0x4e, 0x47])
      expect(obs.timings.observeMs).toBeGreaterThanOrEqual(0)

      const home = yield* env.reset({ taskId: "t", startUrl: site.url("/") })
      expect(find(home, "link", "Form").id).toBe("e1")
      // Contained image alt beats title, as in accname.
      expect(find(home, "link", "List icon")).toBeDefined()
    })
  )
})

test("click, long_press, type with submit, select, checkbox and key act on the page", async () => {
  await rt.withEnv({}, (env) =>
    Effect.gen(function* () {
      const obs = yield* env.reset({ taskId: "t", startUrl: site.url("/form") })
      const clicked = yield* env.step({ kind: "click", target: target(find(obs, "button", "Press me")) })
      expect(clicked.observation.error).toBeNull()
      // The same node keeps its id after its text changed.
      expect(find(clicked, "button", "Clicked").id).toBe(find(obs, "button", "Press me").id)

      const held = yield* env.step({ kind: "long_press", target: target(find(obs, "button", "Hold me")) })
      expect(find(held, "button", "Held")).toBeDefined()

      const checked = yield* env.step({ kind: "click", target: target(find(obs, "checkbox", "I agree")) })
      expect(find(checked, "checkbox", "I agree").checked).toBe(true)

      const selected = yield* env.step({ kind: "select", target: target(find(obs, "combobox", "Color")), value: "Green" })
      expect(find(selected, "combobox", "Color").value).toBe("g")
      // Named by its label, recorded by its value, as the recorder records a person's choice; a value is recorded as it was.
      expect(selected.performed).toMatchObject({ kind: "select", value: "g", label: "Green" })
      const byValue = yield* env.step({ kind: "select", target: target(find(selected, "combobox", "Color")), value: "r" })
      expect(find(byValue, "combobox", "Color").value).toBe("r")
      expect(byValue.performed).toBeUndefined()

      const typed = yield* env.step({ kind: "type", target: target(find(obs, "textbox", "Search query")), text: "shoes", submit: true })
      expect(find(typed, "textbox", "Search query").value).toBe("shoes")
      expect(typed.aria).toContain("sent shoes")

      const keyed = yield* env.step({ kind: "key", key: "Tab" })
      expect(keyed.observation.error).toBeNull()
      const badKey = yield* env.step({ kind: "key", key: "NoSuchKey" })
      expect(badKey.observation.error).toContain("key failed")
    })
  )
})

test("navigate, back, scroll and wait; stale and unknown ids are error observations", async () => {
  await rt.withEnv({}, (env) =>
    Effect.gen(function* () {
      const home = yield* env.reset({ taskId: "t", startUrl: site.url("/") })
      const next = yield* env.step({ kind: "click", target: target(find(home, "link", "Next page")) })
      expect(next.observation.url).toBe(site.url("/next"))
      const stale = yield* env.step({ kind: "click", target: target(find(home, "link", "Form")) })
      expect(stale.observation.error).toMatch(/^stale element id e\d+/)
      expect(stale.observation.url).toBe(site.url("/next"))
      const unknown = yield* env.step({ kind: "click", target: { role: null, name: null, elementId: "e999", text: null } })
      expect(unknown.observation.error).toBe("unknown element id e999")
      const injected = yield* env.step({ kind: "click", target: { role: null, name: null, elementId: '"]', text: null } })
      expect(injected.observation.error).toContain("unknown element id")

      const back = yield* env.step({ kind: "back" })
      expect(back.observation.url).toBe(site.url("/"))
      // Ids are never reused: the re-rendered home page gets new ones.
      expect(find(back, "link", "Form").id).not.toBe(find(home, "link", "Form").id)

      const scroller = yield* env.step({ kind: "navigate", url: site.url("/scroller") })
      const down = yield* env.step({ kind: "scroll", target: null, direction: "down" })
      const scrollOf = (o: typeof down) =>
        Effect.map(
          BlobStore.use((b) => b.get(o.observation.elements!)),
          (bytes) => JSON.parse(decode(bytes)).scroll
        )
      expect((yield* scrollOf(down)).y).toBeGreaterThan(0)
      const inner = find(scroller, "button", "Inner")
      const boxDown = yield* env.step({ kind: "scroll", target: target(inner), direction: "down" })
      expect(find(boxDown, "button", "Inner").box!.y).toBeLessThan(find(down, "button", "Inner").box!.y)

      const waited = yield* env.step({ kind: "wait", ms: 50 })
      expect(waited.observation.error).toBeNull()
      const badUrl = yield* env.step({ kind: "navigate", url: "http://127.0.0.1:1/" })
      expect(badUrl.observation.error).toStartWith("navigate refused: http://127.0.0.1:1/ is outside this app's origins")
    })
  )
})

test("home and open_app are rejected; answer and status end the episode", async () => {
  await rt.withEnv({ screenshots: "key" }, (env) =>
    Effect.gen(function* () {
      yield* env.reset({ taskId: "t", startUrl: site.url("/") })
      const home = yield* env.step({ kind: "home" })
      expect(home.observation.error).toBe("home is not available on the web platform")
      expect(home.observation.screenshot).toBeNull()
      const app = yield* env.step({ kind: "open_app", app: "Settings" })
      expect(app.observation.error).toBe("open_app is not available on the web platform")
      const answered = yield* env.step({ kind: "answer", text: "42" })
      expect(answered).toMatchObject({ done: true, observation: { error: null, url: site.url("/") } })
      const after = yield* env.step({ kind: "click", target: null })
      expect(after.observation.error).toContain("episode has ended")
    })
  )
})

test("a slow navigation times out as an error observation", async () => {
  await rt.withEnv({ actionTimeoutMs: 700 }, (env) =>
    Effect.gen(function* () {
      yield* env.reset({ taskId: "t", startUrl: site.url("/") })
      const t0 = Date.now()
      const slow = yield* env.step({ kind: "navigate", url: site.url("/slow") })
      expect(slow.observation.error).toBe("navigate timed out after 700 ms")
      expect(Date.now() - t0).toBeLessThan(4000)
    })
  )
})

test("a long page is truncated for the policy, and the truncation recorded", async () => {
  await rt.withEnv({ screenshots: "none", elementLimit: 50 }, (env) =>
    Effect.gen(function* () {
      const obs = yield* env.reset({ taskId: "t", startUrl: site.url("/list") })
      expect(obs.elements.length).toBe(301)
      expect(obs.observation.truncated).toBe(true)
      expect(obs.observation.screenshot).toBeNull()
      expect(obs.view).toMatchObject({ truncated: true, shown: 50, total: 301 })
      expect(obs.view.text).toContain("251 more elements not shown")
      // The in-viewport link comes first; then visible offscreen items in document order.
      expect(obs.view.text.split("\n")[0]).toContain(`link "Top"`)
      expect(obs.view.text).toContain(`button "Item 48"`)
      expect(obs.view.text).not.toContain(`button "Item 49"`)
    })
  )
})
