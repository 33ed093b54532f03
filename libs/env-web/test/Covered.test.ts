/**
 * Elements a click cannot reach: while a modal dialog is open, everything outside it is
 * marked `covered` in the observation, and so is an element under another one (a banner
 * over a button). An element whose own text, icon or label takes the point is not covered,
 * and nothing is marked once the dialog closes.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import { find, startRuntime, target } from "./fixtures.ts"

const page = `<!doctype html><html><head><title>Budget</title><style>
  #banner { position: fixed; top: 0; left: 0; width: 300px; height: 60px; background: #fff }
  #under { position: fixed; top: 10px; left: 10px }
  .box { position: relative } .box input { position: absolute; left: 0; top: 0 }
  .box span { position: relative; display: inline-block; width: 120px; height: 24px; background: #ccc }
</style></head><body>
  <button id="under">Under the banner</button><div id="banner">Welcome</div>
  <div style="margin-top: 100px">
    <button onclick="document.getElementById('add').showModal()">Add account</button>
    <a href="#reports">Reports</a>
    <button><span>Icon</span> <b>With its own text</b></button>
    <label class="box"><input type="checkbox"><span>Custom box</span></label>
  </div>
  <dialog id="add"><form method="dialog">
    <input aria-label="Name"> <button>Create</button> <button>Close</button>
  </form></dialog>
</body></html>`

const app = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: () => new Response(page, { headers: { "content-type": "text/html" } })
})
const origin = `http://127.0.0.1:${app.port}`

const rt = startRuntime()
afterAll(async () => {
  await rt.dispose()
  app.stop(true)
})

const coveredNames = (elements: ReadonlyArray<{ readonly name: string; readonly covered?: boolean }>) =>
  elements.filter((e) => e.covered === true).map((e) => e.name)

test("an element under another is covered; one whose own parts take the point is not", async () => {
  await rt.withEnv({ screenshots: "none" }, (env) =>
    Effect.gen(function* () {
      const first = yield* env.reset({ taskId: "t", startUrl: `${origin}/` })
      expect(coveredNames(first.elements)).toEqual(["Under the banner"])
      expect(find(first, "button", "Add account").covered).toBeUndefined()
      expect(find(first, "link", "Reports").covered).toBeUndefined()
      expect(find(first, "button", "Icon With its own text").covered).toBeUndefined()
      // A styled box drawn over its input: the label's own part takes the point.
      expect(first.elements.find((e) => e.role === "checkbox")).toMatchObject({ visible: true })
      expect(first.elements.find((e) => e.role === "checkbox")?.covered).toBeUndefined()
    })
  )
})

test("while a modal is open everything outside it is covered; inside it nothing is, and closing it clears the marks", async () => {
  await rt.withEnv({ screenshots: "none" }, (env) =>
    Effect.gen(function* () {
      const first = yield* env.reset({ taskId: "t", startUrl: `${origin}/` })
      const open = yield* env.step({ kind: "click", target: target(find(first, "button", "Add account")) })
      const covered = new Set(coveredNames(open.elements))
      for (const name of ["Add account", "Reports", "Under the banner", "Icon With its own text"]) expect(covered.has(name)).toBe(true)
      expect(open.elements.find((e) => e.role === "checkbox")?.covered).toBe(true)
      for (const name of ["Name", "Create", "Close"]) expect(covered.has(name)).toBe(false)
      const closed = yield* env.step({ kind: "click", target: target(find(open, "button", "Close")) })
      expect(coveredNames(closed.elements)).toEqual(["Under the banner"])
    })
  )
})
