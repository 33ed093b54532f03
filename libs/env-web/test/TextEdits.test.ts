/**
 * The recorder's rule for a person's edit of a text field (TextEdits.ts), as a table; then
 * once for real: a headed Chromium on an Xvfb this file starts, a line appended to a long
 * textarea with real key presses, recorded as click, `Control+End` and an insert of that
 * line only, while a single-line input (appended to as well) and a password are filled as
 * before.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chromium } from "playwright-core"
import { DirectoryBlobStore } from "@core/blobstore"
import * as Recorder from "../Recorder.ts"
import { editActions, textEdit } from "../TextEdits.ts"
import type { TextEdit } from "../TextEdits.ts"

const target = { role: "textbox", name: "Body", elementId: "e2", text: null }

describe("what an edit records", () => {
  const edits: ReadonlyArray<readonly [string, string | null, string, TextEdit]> = [
    ["an empty field typed into", "", "hello", { kind: "fill" }],
    ["a value never seen", null, "hello", { kind: "fill" }],
    ["a line appended", "Line 1\nLine 2", "Line 1\nLine 2\nLine 3", { kind: "insert", at: "end", text: "\nLine 3" }],
    ["a heading prepended", "Body text", "Title\nBody text", { kind: "insert", at: "start", text: "Title\n" }],
    ["an append that also fits a prepend", "aa", "aaa", { kind: "insert", at: "end", text: "a" }],
    ["text added in the middle", "red kettle", "red steel kettle", { kind: "fill" }],
    ["a selection replaced", "red kettle", "blue kettle", { kind: "fill" }],
    ["text removed", "red kettle", "red", { kind: "fill" }],
    ["nothing changed", "red", "red", { kind: "fill" }]
  ]
  test.each(edits)("%s", (_, previous, value, expected) => {
    expect(textEdit(previous, value)).toEqual(expected)
  })

  test("an append is a click, Control+End and an insert of the added text; a prepend Control+Home; a fill one step", () => {
    expect(editActions(target, { previous: "a\nb", text: "a\nb\nc", submit: false })).toEqual([
      { kind: "click", target },
      { kind: "key", key: "Control+End" },
      { kind: "type", target, text: "\nc", submit: false, mode: "insert" }
    ])
    expect(editActions(target, { previous: "b", text: "a\nb", submit: false }).slice(1)).toEqual([
      { kind: "key", key: "Control+Home" },
      { kind: "type", target, text: "a\n", submit: false, mode: "insert" }
    ])
    // An input reports no value before: it is filled, whatever it held.
    expect(editActions(target, { previous: null, text: "red kettle", submit: true })).toEqual([
      { kind: "type", target, text: "red kettle", submit: true }
    ])
  })
})

const BODY = Array.from({ length: 30 }, (_, i) => `Line ${i + 1}`).join("\n")
const page = `<!doctype html><title>Edit</title>
  <label>Body <textarea rows="6">${BODY}</textarea></label>
  <label>Summary <input value="Edit:"></label><label>Password <input type="password"></label>
  <button type="button">Save</button>`
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(page, { headers: { "content-type": "text/html" } }) })
const blobs = mkdtempSync(join(tmpdir(), "core-text-edits-"))
// The display the headed Chromium opens on: started here, stopped here.
const xvfb = Bun.spawn(["Xvfb", "-displayfd", "1", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"], {
  stdout: "pipe",
  stderr: "ignore"
})
const displayBefore = process.env.DISPLAY
afterAll(() => {
  if (displayBefore === undefined) delete process.env.DISPLAY
  else process.env.DISPLAY = displayBefore
  server.stop(true)
  xvfb.kill()
  rmSync(blobs, { recursive: true, force: true })
})

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.on("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })

const display = async (): Promise<string> => {
  const reader = xvfb.stdout.getReader()
  let text = ""
  while (!text.includes("\n")) {
    const { value, done } = await reader.read()
    if (done) throw new Error("Xvfb exited before naming its display")
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return `:${text.trim()}`
}

test("a person's appended line is recorded as an insert of that line; an input and a password as fills", async () => {
  process.env.DISPLAY = await display()
  const port = await freePort()
  const steps = await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const recording = yield* Recorder.open({
          startUrl: `http://127.0.0.1:${server.port}/`,
          cdpPort: port,
          settleMs: 500,
          readSecret: () => "pw1"
        })
        const browser = yield* Effect.promise(() => chromium.connectOverCDP(`http://127.0.0.1:${port}`))
        yield* Effect.promise(async () => {
          const p = browser.contexts()[0]!.pages()[0]!
          await p.getByRole("textbox", { name: "Body" }).click()
          await p.keyboard.press("Control+End")
          await p.keyboard.type("\nLine 31")
          await p.getByRole("textbox", { name: "Summary" }).click()
          await p.keyboard.press("End")
          await p.keyboard.type(" added a line")
          await p.getByRole("textbox", { name: "Password" }).click()
          await p.keyboard.type("pw1")
          await p.getByRole("button", { name: "Save" }).click()
        })
        const steps = yield* recording.finish({ kind: "status", status: "complete" })
        yield* Effect.promise(() => browser.close())
        return steps
      })
    ).pipe(Effect.provide(Layer.fresh(DirectoryBlobStore.layer({ dir: blobs }))))
  )
  const shape = steps.map((s) => {
    const { target, ...rest } = s.action as any
    return target === undefined ? rest : { ...rest, field: target?.name }
  })
  expect(shape).toEqual([
    { kind: "click", field: "Body" },
    { kind: "key", key: "Control+End" },
    { kind: "type", field: "Body", text: "\nLine 31", submit: false, mode: "insert" },
    { kind: "type", field: "Summary", text: "Edit: added a line", submit: false },
    { kind: "type", field: "Password", text: "", submit: false, secretEnv: "CORE_DEMO_PASSWORD" },
    { kind: "click", field: "Save" },
    { kind: "status", status: "complete" }
  ])
  // The click and the caret key were not observed apart; the insert's page was.
  expect(steps.slice(0, 2).map((s) => s.observation.elements)).toEqual([null, null])
  expect(steps[2]!.observation.elements).not.toBeNull()
}, 60_000)
