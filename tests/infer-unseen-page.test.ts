/**
 * The synthesizer has no site- or task-specific rules: a page it has never seen (a small
 * library app served here, not one of the bundled sites) gets label functions from one
 * demo recorded in real Chromium, validated in the real sandbox — and those LFs accept the
 * task done again in a new episode (a new loan id minted) while rejecting the wrong book,
 * the wrong branch and a run that gives up.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BlobStore, DirectoryBlobStore } from "@core/blobstore"
import { BrowserPool, WebEnvironment } from "@core/env-web"
import { targetOf } from "@core/environment"
import type { FullObservation } from "@core/environment"
import { fromRecordedSteps, lfElements } from "@core/domain"
import type { LfElement, LfTrajectory } from "@core/domain"
import type { Action, Observation, TrajectoryStep } from "@core/events"
import { inferLabelFunctions, labelSandbox } from "@core/pipeline"
import { noModels } from "@core/engine"
import { Sandbox } from "@core/sandbox"

const BOOKS = ["Dune", "Emma", "Ulysses"]
let nextLoan = 4821
const page = (title: string, body: string) =>
  new Response(
    `<!doctype html><html><head><title>${title}</title></head><body><nav><a href="/">Home</a> <a href="/catalogue">Catalogue</a></nav><main>${body}</main></body></html>`,
    {
      headers: { "content-type": "text/html" }
    }
  )

const server = Bun.serve({
  port: 0,
  async fetch(req) {
    const url = new URL(req.url)
    if (url.pathname === "/") return page("Library", `<h1>City library</h1><a href="/catalogue">Browse the catalogue</a>`)
    if (url.pathname === "/catalogue")
      return page("Catalogue", `<ul>${BOOKS.map((b) => `<li><a href="/book/${b.toLowerCase()}">${b}</a></li>`).join("")}</ul>`)
    const book = /^\/book\/(\w+)$/.exec(url.pathname)?.[1]
    if (book !== undefined && req.method === "GET") {
      return page(
        book,
        `<h1>${book}</h1><form method="post" action="/book/${book}/borrow">
        <label for="branch">Pickup branch</label> <select id="branch" name="branch"><option value="north">North</option><option value="south">South</option></select>
        <input id="remind" type="checkbox" name="remind"> <label for="remind">Email reminder</label>
        <label for="weeks">Weeks</label> <input id="weeks" type="number" name="weeks" value="2">
        <button type="submit">Borrow</button></form>`
      )
    }
    if (url.pathname.endsWith("/borrow") && req.method === "POST") {
      return Response.redirect(`${url.origin}/loans/L-${nextLoan++}?new=1`, 303)
    }
    if (url.pathname.startsWith("/loans/")) return page("Loan", `<p role="status">Loan confirmed</p><a href="/">Back home</a>`)
    return new Response("not found", { status: 404 })
  }
})
const origin = `http://127.0.0.1:${server.port}`

const dir = mkdtempSync(join(tmpdir(), "core-unseen-"))
const runtime = ManagedRuntime.make(Layer.mergeAll(BrowserPool.layer({}), DirectoryBlobStore.layer({ dir }), labelSandbox(), noModels))

type Step =
  | { kind: "click"; role: string; name: string }
  | { kind: "type"; role: string; name: string; text: string }
  | { kind: "select"; role: string; name: string; value: string }
  | { kind: "status"; status: "complete" | "infeasible" }

/** Records one episode of `script` as an LF trajectory (elements read back from the blob store). */
const record = (script: ReadonlyArray<Step>) =>
  runtime.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const env = yield* WebEnvironment.make({})
        let obs: FullObservation = yield* env.reset({ taskId: "library-borrow", startUrl: `${origin}/` })
        const initial: Observation = obs.observation
        const steps: Array<TrajectoryStep> = []
        for (const s of script) {
          const find = (role: string, name: string) => {
            const e = obs.elements.find((x) => x.role === role && x.name === name)
            if (e === undefined) throw new Error(`no ${role} ${name} on ${obs.observation.url}`)
            return targetOf(e)
          }
          const action: Action =
            s.kind === "click"
              ? { kind: "click", target: find(s.role, s.name) }
              : s.kind === "type"
                ? { kind: "type", target: find(s.role, s.name), text: s.text }
                : s.kind === "select"
                  ? { kind: "select", target: find(s.role, s.name), value: s.value }
                  : { kind: "status", status: s.status }
          obs = yield* env.step(action)
          steps.push({ action, observation: obs.observation })
        }
        const blobs = yield* BlobStore
        const elements = new Map<string, ReadonlyArray<LfElement> | null>()
        for (const o of [initial, ...steps.map((s) => s.observation)]) {
          if (o.elements !== null) elements.set(o.elements, lfElements(JSON.parse(new TextDecoder().decode(yield* blobs.get(o.elements)))))
        }
        return fromRecordedSteps(initial, steps, (h) => elements.get(h) ?? null)
      })
    )
  )

const borrow = (book: string, branch: string, status: "complete" | "infeasible" = "complete"): ReadonlyArray<Step> => [
  { kind: "click", role: "link", name: "Browse the catalogue" },
  { kind: "click", role: "link", name: book },
  { kind: "select", role: "combobox", name: "Pickup branch", value: branch },
  { kind: "click", role: "checkbox", name: "Email reminder" },
  { kind: "type", role: "spinbutton", name: "Weeks", text: "3" },
  { kind: "click", role: "button", name: "Borrow" },
  { kind: "status", status }
]

let demo: LfTrajectory
let lfs: Array<{ stepIndex: number; code: string }> = []

beforeAll(async () => {
  demo = await record(borrow("Emma", "south"))
  const result = await runtime.runPromise(
    inferLabelFunctions({
      runId: "unseen",
      causationId: "unseen-demo",
      instruction: "Borrow Emma for three weeks, picked up at the South branch, with an email reminder.",
      demo,
      demoKey: "unseen-demo",
      failures: [],
      model: null
    })
  )
  lfs = result.labelFunctions.flatMap((l) => (l.kind === "inferred" ? [{ stepIndex: l.keyStep.stepIndex, code: l.code }] : []))
  expect(result.labelFunctions.filter((l) => l.kind === "rejected")).toEqual([])
}, 180_000)

afterAll(async () => {
  await runtime.dispose()
  server.stop(true)
  rmSync(dir, { recursive: true, force: true })
})

/** Every LF holds, at strictly increasing steps (the task-level label). */
const passes = (t: LfTrajectory, key: string) =>
  runtime.runPromise(
    Effect.gen(function* () {
      const sandbox = yield* Sandbox
      const verdicts = yield* sandbox.evaluateBatch(lfs.map((lf) => ({ code: lf.code, trajectory: { key, value: t } })))
      const at = verdicts.map((v) => (v.kind === "ok" ? v.satisfiedAt : -1))
      return at.every((s, i) => s >= 0 && (i === 0 || s > at[i - 1]!))
    })
  )

test("key steps of a page never seen: the choices, the submit and the status, each with an LF from the demo alone", () => {
  expect(lfs.map((l) => l.stepIndex)).toEqual([2, 3, 4, 5, 6])
  const code = lfs.map((l) => l.code).join("\n")
  expect(code).toContain(`validateSelect(t, "south", "Pickup branch"`)
  expect(code).toContain(`hasElement(s, "checkbox", "Email reminder", { checked: true })`)
  expect(code).toContain(`validateType(t, "3", "Weeks"`)
  // The loan id was minted by the submit: generalised, while the book's page stays literal.
  expect(code).toMatch(/\/loans\/L-\\\\d\+/)
  expect(code).toContain("/book/emma")
  expect(code).not.toMatch(/elementId|data-core-id/)
})

test("the LFs accept the task done again (a new loan id) and reject the wrong book, the wrong branch and giving up", async () => {
  expect(await passes(demo, "demo")).toBe(true)
  const again = await record(borrow("Emma", "south"))
  expect(again.steps.at(-2)!.urlAfter).not.toBe(demo.steps.at(-2)!.urlAfter)
  expect(await passes(again, "again")).toBe(true)
  expect(await passes(await record(borrow("Dune", "south")), "wrong-book")).toBe(false)
  expect(await passes(await record(borrow("Emma", "north")), "wrong-branch")).toBe(false)
  expect(await passes(await record(borrow("Emma", "south", "infeasible")), "gave-up")).toBe(false)
}, 240_000)
