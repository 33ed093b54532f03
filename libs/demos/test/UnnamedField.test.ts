/**
 * A step file's `"name": null` in a real Chromium (`recordSteps`): on a page with a named
 * and an unnamed textbox it types into the unnamed one; where two fields have no name, it is
 * refused in one line unless `nth` says which, and `nth` then picks it.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { recordSteps, StepPlayError } from "../mod.ts"
import type { Step } from "../mod.ts"

/** Each field's value, reported on one line in a named read-only field as it changes. */
const form = (fields: string) => `<!doctype html><title>Form</title>
  ${fields}
  <input id="report" aria-label="Report" readonly>
  <script>
    const report = document.getElementById("report")
    const fields = [...document.querySelectorAll("input:not(#report)")]
    const show = () => report.value = fields.map((f) => f.id + "=" + f.value).join(";")
    fields.forEach((f) => f.addEventListener("input", show))
  </script>`
const pages: Record<string, string> = {
  "/one": form(`<label>Title <input id="title"></label> <input id="free">`),
  "/two": form(`<label>Title <input id="title"></label> <input id="a"> <input id="b">`)
}
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: (req) => new Response(pages[new URL(req.url).pathname] ?? "not found", { headers: { "content-type": "text/html" } })
})
const tmp = mkdtempSync(join(tmpdir(), "core-unnamed-"))
afterAll(() => {
  server.stop(true)
  rmSync(tmp, { recursive: true, force: true })
})

let runs = 0
/** Records `steps` on `path`; the demo folder's steps, or the error. */
const record = (path: string, steps: ReadonlyArray<Step>) => {
  const out = join(tmp, `demo-${runs++}`)
  const task = { taskId: "form-1", startUrl: `http://127.0.0.1:${server.port}${path}` }
  return Effect.runPromise(
    Effect.match(recordSteps({ task, steps, out, demoId: "form-1-steps", tasks: new Set(["form-1"]) }), {
      onFailure: (error) => ({ error, out, demo: null }),
      onSuccess: () => ({ error: null, out, demo: JSON.parse(readFileSync(join(out, "demo.json"), "utf8")) })
    })
  )
}

/** The Report field's value on a recorded step's screen, read from the folder's elements blob. */
const reported = (out: string, step: { observation: { elements: string } }): string | null => {
  const blob = readdirSync(join(out, "blobs")).find((f) => f.startsWith(step.observation.elements))
  const elements = JSON.parse(readFileSync(join(out, "blobs", blob!), "utf8")).elements as Array<{ name: string; value: string | null }>
  return elements.find((e) => e.name === "Report")?.value ?? null
}

const typeInto = (target: { role: string; name: null; nth?: number }, text: string): Step => ({ kind: "type", target, text })
const done: Step = { kind: "status", status: "complete" }

describe('a target with "name": null, in Chromium', () => {
  test("beside a named textbox, it finds the one with no name", async () => {
    const r = await record("/one", [typeInto({ role: "textbox", name: null }, "hello"), done])
    expect(r.error).toBeNull()
    const typed = r.demo.steps[0]
    expect(typed.action.target).toMatchObject({ role: "textbox", name: "" })
    expect(reported(r.out, typed)).toBe("title=;free=hello")
  }, 120_000)

  test("two fields with no name and no nth: one line that asks for nth; with nth 1, the second", async () => {
    const refused = await record("/two", [typeInto({ role: "textbox", name: null }, "hello"), done])
    expect(refused.error).toBeInstanceOf(StepPlayError)
    expect(refused.error?.message).toBe(
      'step 1 (type textbox with no name): 2 elements match textbox with no name: say which with "nth" (from 0: visible and enabled first, then page order)'
    )
    const picked = await record("/two", [typeInto({ role: "textbox", name: null, nth: 1 }, "hello"), done])
    expect(picked.error).toBeNull()
    expect(reported(picked.out, picked.demo.steps[0])).toBe("title=;a=;b=hello")
  }, 120_000)
})
