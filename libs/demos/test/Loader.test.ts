/** The demo file format: a valid demo loads with blob hashes; each kind of defect is one line naming file and field. */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { digest, sha256 } from "@core/events"
import { DemoFileError, findDemoFiles, loadDemo } from "../mod.ts"
import { ARIA, PNG, validDemo, writeDemo } from "./fixture.ts"

const tmp = mkdtempSync(join(tmpdir(), "core-demos-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const tasks = new Set(["shop-wishlist-add-1", "shop-buy-1"])
let n = 0
const fresh = () => join(tmp, `d${n++}`)

const load = (file: string) => Effect.runPromise(loadDemo(file, { tasks }))
const failure = async (file: string): Promise<DemoFileError> => {
  const r = await Effect.runPromise(Effect.flip(loadDemo(file, { tasks })))
  expect(r).toBeInstanceOf(DemoFileError)
  expect(r.message).not.toContain("\n")
  expect(r.message.startsWith(`${file}: `)).toBe(true)
  return r
}
const broken = async (mutate: (d: any) => void) => {
  const d = validDemo()
  mutate(d)
  return failure(writeDemo(fresh(), d))
}

describe("demo files", () => {
  test("a valid demo loads: steps with blob hashes, the blobs, and digest({ taskId, steps })", async () => {
    const file = writeDemo(fresh())
    const demo = await load(file)
    expect(demo).toMatchObject({ demoId: "shop-wishlist-add-1-a", taskId: "shop-wishlist-add-1", recordedWith: "script" })
    expect(demo.steps).toHaveLength(3)
    expect(demo.steps[0]!.observation).toEqual({
      screenshot: sha256(PNG),
      elements: expect.stringMatching(/^[0-9a-f]{64}$/),
      aria: sha256(ARIA)
    })
    expect(demo.steps[0]).toMatchObject({ urlBefore: "/shop/", appBefore: null, appAfter: null, action: { kind: "type", submit: true } })
    expect(demo.steps[2]!.observation).toEqual({ screenshot: null, elements: null, aria: null })
    expect(demo.blobs.map((b) => b.hash).sort()).toEqual(
      demo.steps
        .flatMap((s) => Object.values(s.observation))
        .filter((h): h is string => h !== null)
        .sort()
    )
    expect(demo.contentDigest).toBe(digest({ taskId: demo.taskId, steps: demo.steps }))
    // The same demo elsewhere, blobs renamed: the same content digest.
    const moved = validDemo()
    moved.blobs = { [sha256(PNG)]: "shots/s0.png", "s1.png": "shots/s1.png", "e0.json": "e0.json", "a0.txt": "a0.txt" }
    moved.steps[0].observation.screenshot = sha256(PNG)
    expect((await load(writeDemo(fresh(), moved))).contentDigest).toBe(demo.contentDigest)
  })

  test("an unknown action kind names the step's field", async () => {
    const e = await broken((d) => (d.steps[1].action.kind = "swipe"))
    expect(e.reason).toStartWith("steps[1].action.kind: unknown action kind 'swipe'")
    expect(e).toMatchObject({ demoId: "shop-wishlist-add-1-a", stepIndex: 1 })
  })

  test("a step without an action, a missing field, a non-string element id, an unknown field", async () => {
    expect((await broken((d) => delete d.steps[0].action)).reason).toStartWith("steps[0].action: missing")
    expect((await broken((d) => delete d.steps[1].urlAfter)).reason).toBe("steps[1].urlAfter: missing field")
    expect((await broken((d) => (d.steps[1].action.target.elementId = 12))).reason).toStartWith(
      "steps[1].action.target.elementId: expected string"
    )
    expect((await broken((d) => (d.steps[2].comment = "x"))).reason).toBe("steps[2].comment: unknown field")
    expect((await broken((d) => delete d.taskId)).reason).toBe("taskId: missing field")
  })

  test("wrong format, version, platform; not JSON; unnamed demo", async () => {
    expect((await broken((d) => (d.version = 3))).reason).toStartWith("version: unsupported demo format version 3")
    expect((await broken((d) => (d.format = "other"))).reason).toStartWith("format: expected 'core-demo'")
    expect((await broken((d) => (d.platform = "android"))).reason).toStartWith('platform: expected "web"')
    const e = await failure(writeDemo(fresh(), undefined, "{ not json"))
    expect(e.reason).toStartWith("$: not valid JSON")
    expect(e.demoId).toBeNull()
    expect((await broken((d) => (d.demoId = "has space"))).reason).toStartWith("demoId: ")
  })

  test("the task must be a suite instance; the last step must be status or answer; at least one step", async () => {
    expect((await broken((d) => (d.taskId = "shop-nope-1"))).reason).toBe(
      "taskId: unknown task 'shop-nope-1' (not an instance of the bundled suites)"
    )
    expect((await broken((d) => d.steps.pop())).reason).toBe(
      "steps[1].action.kind: the last step must be 'status' or 'answer', got 'click'"
    )
    expect((await broken((d) => (d.steps = []))).reason).toBe("steps: a demo needs at least one step")
    const answered = validDemo()
    answered.steps[2].action = { kind: "answer", text: "done" }
    expect((await load(writeDemo(fresh(), answered))).steps[2]!.action).toEqual({ kind: "answer", text: "done" })
  })

  test("blobs: referenced, present, inside the folder, true to a sha256 name", async () => {
    expect((await broken((d) => (d.steps[1].observation.screenshot = "nope.png"))).reason).toBe(
      "steps[1].observation.screenshot: unknown blob 'nope.png' (not a key of blobs)"
    )
    expect((await broken((d) => (d.blobs["s1.png"] = "shots/missing.png"))).reason).toBe(
      `blobs["s1.png"]: blob file 'shots/missing.png' not found beside the demo`
    )
    expect((await broken((d) => (d.blobs["s1.png"] = "../../etc/passwd"))).reason).toBe(
      `blobs["s1.png"]: '../../etc/passwd' is not a path inside the demo's folder`
    )
    const wrong = "0".repeat(64)
    const e = await broken((d) => {
      d.blobs = { ...d.blobs, [wrong]: "shots/s0.png" }
      d.steps[0].observation.screenshot = wrong
    })
    expect(e.reason).toBe(`blobs["${wrong}"]: blob file 'shots/s0.png' hashes to ${sha256(PNG)}, not to its name`)
  })

  test("findDemoFiles: a file, or every demo.json under a directory, sorted", () => {
    const root = fresh()
    writeDemo(join(root, "b"))
    writeDemo(join(root, "a", "nested"))
    mkdirSync(join(root, "c"))
    writeFileSync(join(root, "c", "notes.json"), "{}")
    expect(findDemoFiles(root)).toEqual([join(root, "a", "nested", "demo.json"), join(root, "b", "demo.json")])
    expect(findDemoFiles(join(root, "b", "demo.json"))).toEqual([join(root, "b", "demo.json")])
  })
})
