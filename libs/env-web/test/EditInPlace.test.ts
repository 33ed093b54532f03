/**
 * Editing text in place in a real Chromium: caret keys then `type` with `mode: "insert"`
 * change one place of a long textarea and leave the rest as it was; a selection made with
 * Shift+Home is replaced; an insert into a field without focus lands at its end; `fill`
 * still replaces everything, and a read-only field is refused. The element list shows a
 * textarea's whole text, past the 500 characters an input's value keeps.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import type { Action } from "@core/events"
import type { FullObservation } from "@core/environment"
import { find, startRuntime, target } from "./fixtures.ts"

const BODY = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of the page, long enough to matter.`).join("\n")
// The page reports the textarea's value on one line: how it starts, how it ends, whether the original is intact.
const page = `<!doctype html><title>Wiki</title>
  <label>Title <input id="title" value="Draft"></label>
  <label>Body <textarea id="body" rows="8" cols="80">${BODY}</textarea></label>
  <button type="button">Elsewhere</button><input id="out" aria-label="Report" readonly>
  <script>
    const body = document.getElementById("body"), title = document.getElementById("title"), out = document.getElementById("out")
    const report = () => out.value = JSON.stringify({ title: title.value, head: body.value.slice(0, 12), tail: body.value.slice(-24), intact: body.value.includes(${JSON.stringify(BODY)}), lines: body.value.split("\\n").length })
    body.addEventListener("input", report); title.addEventListener("input", report)
  </script>`
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(page, { headers: { "content-type": "text/html" } }) })
const rt = startRuntime()
afterAll(async () => {
  await rt.dispose()
  server.stop(true)
})

/** The page's report, read off the element list. */
const report = (obs: FullObservation) => JSON.parse(find(obs, "textbox", "Report").value ?? "null")

test(
  "insert at the caret, over a selection and into an unfocused field; fill replaces all",
  () =>
    rt.withEnv({ screenshots: "none", settleMs: 200 }, (env) =>
      Effect.gen(function* () {
        const first = yield* env.reset({ taskId: "wiki", startUrl: `http://127.0.0.1:${server.port}/` })
        const body = target(find(first, "textbox", "Body"))
        const title = target(find(first, "textbox", "Title"))
        const run = (...actions: ReadonlyArray<Action>) =>
          Effect.gen(function* () {
            let last = first
            for (const action of actions) {
              last = yield* env.step(action)
              expect([action.kind, last.observation.error]).toEqual([action.kind, null])
            }
            return report(last)
          })

        // The click leaves the caret mid-text; Control+End moves it to the end.
        const appended = yield* run(
          { kind: "click", target: body },
          { kind: "key", key: "Control+End" },
          { kind: "type", target: body, text: "\nnew line", mode: "insert" }
        )
        expect(appended).toMatchObject({ intact: true, lines: 41 })
        expect(appended.tail).toEndWith("to matter.\nnew line")
        // The element list keeps a textarea's whole text (up to 10,000 characters): where an edit went shows in it.
        const shown = find(yield* env.step({ kind: "wait", ms: 0 }), "textbox", "Body").value
        expect(shown).toBe(`${BODY}\nnew line`.replace(/\s+/g, " "))

        const replaced = yield* run({ kind: "key", key: "Shift+Home" }, { kind: "type", target: body, text: "last line", mode: "insert" })
        expect(replaced).toMatchObject({ intact: true, lines: 41 })
        expect(replaced.tail).toEndWith("to matter.\nlast line")

        const prefixed = yield* run({ kind: "key", key: "Control+Home" }, { kind: "type", target: body, text: "Intro\n", mode: "insert" })
        expect(prefixed).toMatchObject({ intact: true, lines: 42, head: "Intro\nLine 1" })

        // Without focus (the button has it), an insert lands at the field's end, whatever Chromium remembered.
        const unfocused = yield* run(
          { kind: "click", target: target(find(first, "button", "Elsewhere")) },
          { kind: "type", target: title, text: " v2", mode: "insert" }
        )
        expect(unfocused.title).toBe("Draft v2")

        const filled = yield* run({ kind: "type", target: body, text: "short" })
        expect(filled).toMatchObject({ intact: false, lines: 1, tail: "short" })

        const refused = yield* env.step({ kind: "type", target: target(find(first, "button", "Elsewhere")), text: "x", mode: "insert" })
        expect(refused.observation.error).toBe("type: mode insert needs a text field (input, textarea or contenteditable)")
        // A read-only field is refused at once, not after the action's timeout.
        const locked = yield* env.step({ kind: "type", target: target(find(first, "textbox", "Report")), text: "x" })
        expect(locked.observation.error).toBe("type: the field is not editable")
      })
    ),
  60_000
)
