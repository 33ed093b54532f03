/**
 * Edits in place judged by what they made (synthesis 5), in real Chromium: a small wiki
 * served here has an editor (a textarea holding a few lines) whose Save shows the saved
 * page. Demos and trajectories are played from step files; label functions are inferred
 * from each demo and validated in the real sandbox, by version 4 and by version 5.
 *
 * Version 5 refuses the line appended at the wrong place or at the top, and the new value
 * typed beside the old one or over the wrong word, and accepts the demo's edit and the same
 * edit made with other keys (Control+End for many arrows, select-all and retype). Version 4
 * keeps accepting what it accepted — the wrong edits among them, which is why 5 exists.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BlobStore, DirectoryBlobStore } from "@core/blobstore"
import { playDemo } from "@core/demos"
import type { Step } from "@core/demos"
import { fromRecordedSteps, fromStep, holdsInOrder, lfElements } from "@core/domain"
import type { LfElement, LfTrajectory, SynthesisVersion } from "@core/domain"
import { BrowserPool, WebEnvironment } from "@core/env-web"
import { inferLabelFunctions, labelSandbox } from "@core/pipeline"
import { noModels } from "@core/engine"
import { Sandbox } from "@core/sandbox"

// A page with a header and a log long enough that its end lies past the first 500 characters.
const LOG = Array.from({ length: 20 }, (_, i) => `2024-04-${String(i + 10)} Checked pump ${i + 1}, seals fine`)
const ORIGINAL = ["Owner: Bob", "Status: draft", "Due: Friday", ...LOG].join("\n")
const LINES = ORIGINAL.split("\n").length
const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
const html = (title: string, body: string) =>
  new Response(`<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`, {
    headers: { "content-type": "text/html; charset=utf-8" }
  })

// Every save is a new revision: an episode never sees another's edit.
const revisions: Array<string> = []
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const url = new URL(req.url)
    if (url.pathname === "/page/Notes" && req.method === "GET") {
      const rev = url.searchParams.get("rev")
      const text = rev === null ? ORIGINAL : (revisions[Number(rev)] ?? "")
      // The page's text sits in a focusable region, so the element list (what an LF reads) shows it.
      const lines = text.split(/\r?\n/).map((l) => `<p>${escape(l)}</p>`)
      return html(
        "Notes",
        `<h1>Notes</h1><article tabindex="0" aria-label="Page text">${lines.join("")}</article><a href="/page/Notes/edit">Edit</a>`
      )
    }
    if (url.pathname === "/page/Notes/edit" && req.method === "GET") {
      return html(
        "Edit Notes",
        `<form method="post" action="/page/Notes/edit"><label for="body">Body</label>
        <textarea id="body" name="body" rows="8" cols="60">${escape(ORIGINAL)}</textarea>
        <button type="submit">Save</button> <a href="/page/Notes">Cancel</a></form>`
      )
    }
    if (url.pathname === "/page/Notes/edit" && req.method === "POST") {
      revisions.push(String((await req.formData()).get("body") ?? ""))
      return Response.redirect(`${url.origin}/page/Notes?rev=${revisions.length - 1}`, 303)
    }
    return new Response("not found", { status: 404 })
  }
})

const dir = mkdtempSync(join(tmpdir(), "core-edit-in-place-"))
const runtime = ManagedRuntime.make(Layer.mergeAll(BrowserPool.layer({}), DirectoryBlobStore.layer({ dir }), labelSandbox(), noModels))

test("the page's text runs past the 500 characters an input's value keeps", () => {
  expect(ORIGINAL.length).toBeGreaterThan(700)
})

afterAll(async () => {
  await runtime.dispose()
  server.stop(true)
  rmSync(dir, { recursive: true, force: true })
})

const key = (k: string, times = 1): ReadonlyArray<Step> => Array.from({ length: times }, () => ({ kind: "key", key: k }) as const)
const insert = (text: string): Step => ({ kind: "type", target: { role: "textbox", name: "Body" }, text, mode: "insert" })

/** Open the editor, click the body, edit with `edit`, save, say complete. */
const editing = (edit: ReadonlyArray<Step>): ReadonlyArray<Step> => [
  { kind: "click", target: { role: "link", name: "Edit" } },
  { kind: "click", target: { role: "textbox", name: "Body" } },
  ...edit,
  { kind: "click", target: { role: "button", name: "Save" } },
  { kind: "status", status: "complete" }
]

/** Plays a step file in a fresh episode and reads it back as an LF trajectory, with what the saved page showed. */
const record = (steps: ReadonlyArray<Step>) =>
  runtime.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const env = yield* WebEnvironment.make({})
        const played = yield* playDemo(env, { taskId: "wiki-notes", startUrl: `http://127.0.0.1:${server.port}/page/Notes` }, steps)
        const blobs = yield* BlobStore
        const elements = new Map<string, ReadonlyArray<LfElement> | null>()
        for (const o of [played.initial, ...played.steps.map((s) => s.observation)]) {
          if (o.elements !== null) elements.set(o.elements, lfElements(JSON.parse(new TextDecoder().decode(yield* blobs.get(o.elements)))))
        }
        const t = fromRecordedSteps(
          played.initial,
          played.steps.map((s) => ({ action: s.action, observation: s.observation })),
          (h) => elements.get(h) ?? null
        )
        // What the Save stored (a form posts a textarea's lines with CRLF).
        return { t, saved: (revisions.at(-1) ?? "").replace(/\r\n/g, "\n") }
      })
    )
  )

/** The LFs a version infers from `demo` in the real pipeline (embedded, validated in the sandbox). */
const infer = async (demo: LfTrajectory, version: SynthesisVersion) => {
  const result = await runtime.runPromise(
    inferLabelFunctions({
      runId: `edit-v${version}`,
      causationId: "edit-demo",
      instruction: "Edit the Notes page.",
      demo,
      demoKey: `edit-demo-${version}-${demo.steps.length}-${JSON.stringify(demo).length}`,
      failures: [],
      model: null,
      synthesis: version
    })
  )
  expect(result.labelFunctions.filter((l) => l.kind === "rejected")).toEqual([])
  return result.labelFunctions.flatMap((l) => (l.kind === "inferred" ? [l.code] : []))
}

let key0 = 0
/** The task-level verdict: every LF holds in key-step order, each asked from the step after the last (`holdsInOrder`). */
const passes = (lfs: ReadonlyArray<string>, t: LfTrajectory) =>
  runtime.runPromise(
    Effect.gen(function* () {
      const sandbox = yield* Sandbox
      const views = t.steps.map((s) => ({ key: `view-${key0++}`, value: fromStep(t, s.index) }))
      const verdicts = yield* sandbox.evaluateBatch(lfs.flatMap((code) => views.map((trajectory) => ({ code, trajectory }))))
      const at = (lf: number, from: number) => {
        const v = verdicts[lf * views.length + Math.min(from, views.length - 1)]!
        return from >= views.length || v.kind !== "ok" ? -1 : v.satisfiedAt
      }
      return holdsInOrder(lfs.length, at).pass
    })
  )

type Case = readonly [name: string, steps: ReadonlyArray<Step>, saved: string, v4: boolean, v5: boolean]

const judged = (title: string, demoSteps: ReadonlyArray<Step>, demoSaved: string, shown: boolean, cases: ReadonlyArray<Case>) =>
  describe(title, () => {
    const lfs = new Map<SynthesisVersion, ReadonlyArray<string>>()
    beforeAll(async () => {
      const demo = await record(demoSteps)
      expect(demo.saved).toBe(demoSaved)
      for (const v of ["4", "5"] as const) lfs.set(v, await infer(demo.t, v))
    }, 120_000)

    test(`version 5 writes the edit's LF from the field's content${shown ? " and the saved page" : ""}; version 4 from the typed text`, () => {
      const v5 = lfs.get("5")!.join("\n")
      expect(v5).toContain("validateEdit(t, ")
      // The saved page's text shows its first 200 characters: a line appended to the log is past them.
      expect(v5.includes("shown: /")).toBe(shown)
      expect(v5).not.toContain("validateType(")
      expect(lfs.get("4")!.join("\n")).toContain(`mode: "insert"`)
    })

    for (const [name, steps, saved, v4, v5] of cases) {
      test(`${name}: version 4 ${v4 ? "accepts" : "refuses"}, version 5 ${v5 ? "accepts" : "refuses"}`, async () => {
        const { t, saved: shown } = await record(steps)
        // What the saved page shows, so each case is the edit it says it is.
        expect(shown).toBe(saved)
        expect([await passes(lfs.get("4")!, t), await passes(lfs.get("5")!, t)]).toEqual([v4, v5])
      }, 60_000)
    }
  })

const APPENDED = `${ORIGINAL}\nReviewed by Ann`
const lines = ORIGINAL.split("\n")
judged(
  "append a line at the end of a long page: the demo moves down line by line",
  editing([...key("Control+Home"), ...key("ArrowDown", LINES - 1), ...key("End"), insert("\nReviewed by Ann")]),
  APPENDED,
  false,
  [
    [
      "the demo's keys again",
      editing([...key("Control+Home"), ...key("ArrowDown", LINES - 1), ...key("End"), insert("\nReviewed by Ann")]),
      APPENDED,
      true,
      true
    ],
    ["Control+End instead of the arrows", editing([...key("Control+End"), insert("\nReviewed by Ann")]), APPENDED, true, true],
    ["select all and retype the whole text", editing([...key("Control+a"), insert(APPENDED)]), APPENDED, false, true],
    [
      "one arrow fewer: the line lands before the last",
      editing([...key("Control+Home"), ...key("ArrowDown", LINES - 2), ...key("End"), insert("\nReviewed by Ann")]),
      [...lines.slice(0, -1), "Reviewed by Ann", lines.at(-1)].join("\n"),
      true,
      false
    ],
    ["the line at the top", editing([...key("Control+Home"), insert("Reviewed by Ann\n")]), `Reviewed by Ann\n${ORIGINAL}`, true, false]
  ]
)

const REPLACED = ORIGINAL.replace("draft", "final")
judged(
  "replace the status: the demo selects the old value and types the new one",
  editing([...key("Control+Home"), ...key("ArrowDown"), ...key("End"), ...key("Shift+ArrowLeft", 5), insert("final")]),
  REPLACED,
  true,
  [
    [
      "the demo's keys again",
      editing([...key("Control+Home"), ...key("ArrowDown"), ...key("End"), ...key("Shift+ArrowLeft", 5), insert("final")]),
      REPLACED,
      true,
      true
    ],
    [
      "the word selected with Control+Shift+ArrowLeft",
      editing([...key("Control+Home"), ...key("ArrowDown"), ...key("End"), ...key("Control+Shift+ArrowLeft"), insert("final")]),
      REPLACED,
      true,
      true
    ],
    ["select all and retype the whole text", editing([...key("Control+a"), insert(REPLACED)]), REPLACED, false, true],
    [
      "the new value beside the old one",
      editing([...key("Control+Home"), ...key("ArrowDown"), ...key("End"), insert(" final")]),
      ORIGINAL.replace("draft", "draft final"),
      true,
      false
    ],
    [
      "no arrow down: the owner replaced instead",
      editing([...key("Control+Home"), ...key("End"), ...key("Shift+ArrowLeft", 3), insert("final")]),
      ORIGINAL.replace("Bob", "final"),
      true,
      false
    ]
  ]
)
