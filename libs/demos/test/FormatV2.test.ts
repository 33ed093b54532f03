/**
 * Demo format version 2 beside version 1: `initial` (the screen before the first step),
 * Android and mobile web, the app on both sides of a step. Its blobs are read, checked and
 * stored like the steps'; a problem is one line naming file and path; version 1 demos load
 * and ingest exactly as before; the writer writes version 2 when it has the initial screen.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { readFileSync, rmSync, symlinkSync, mkdtempSync, unlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BlobStore, DirectoryBlobStore } from "@core/blobstore"
import { digest, sha256 } from "@core/events"
import { EmbeddedStore, EventStore } from "@core/eventstore"
import { DemoFileError, demoStream, ingestDemo, loadDemo, writeDemoFolder } from "../mod.ts"
import { INITIAL_ELEMENTS, INITIAL_PNG, validDemo, validDemoV2, writeDemo, writeDemoV2 } from "./fixture.ts"
import { androidDemo, NETWORK, SETTINGS, writeAndroidDemo } from "./fixtureAndroid.ts"

const tmp = mkdtempSync(join(tmpdir(), "core-demos-v2-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const tasks = new Set(["shop-wishlist-add-1", "settings-network-1"])
let n = 0
const fresh = () => join(tmp, `d${n++}`)
const stores = () =>
  Layer.mergeAll(EmbeddedStore.layer({ path: join(fresh(), "events.db") }), DirectoryBlobStore.layer({ dir: join(tmp, "blobs") }))

const load = (file: string) => Effect.runPromise(loadDemo(file, { tasks }))
const failure = async (file: string): Promise<DemoFileError> => {
  const r = await Effect.runPromise(Effect.flip(loadDemo(file, { tasks })))
  expect(r).toBeInstanceOf(DemoFileError)
  expect(r.message).not.toContain("\n")
  expect(r.message).toStartWith(`${file}: `)
  return r
}
const brokenV2 = (mutate: (d: any) => void) => {
  const d = validDemoV2()
  mutate(d)
  return failure(writeDemoV2(fresh(), d))
}

/** Ingests `file` twice into fresh stores; the outcomes, the stream's events and whether every blob is stored. */
const ingestTwice = (file: string) =>
  Effect.runPromise(
    Effect.provide(
      Effect.gen(function* () {
        const demo = yield* loadDemo(file, { tasks })
        const outcomes = [yield* ingestDemo(demo, file), yield* ingestDemo(demo, file)]
        const blobs = yield* BlobStore
        const stored = yield* Effect.forEach(demo.blobs, (b) => blobs.has(b.hash))
        const events = (yield* (yield* EventStore).readStream(demoStream(demo.demoId))).map((r) => r.event)
        return { demo, outcomes, stored, events }
      }),
      stores()
    )
  )

describe("demo format version 2", () => {
  test("given a v2 web demo with initial, when loaded, then initial is its blobs' hashes and the digest covers it", async () => {
    const demo = await load(writeDemoV2(fresh()))
    expect(demo).toMatchObject({ version: 2, platform: "web", demoId: "shop-wishlist-add-1-a" })
    expect(demo.initial).toEqual({ screenshot: sha256(INITIAL_PNG), elements: sha256(INITIAL_ELEMENTS), aria: null })
    expect(demo.blobs.map((b) => b.hash)).toContain(sha256(INITIAL_PNG))
    expect(demo.steps[0]).toMatchObject({ urlBefore: "/shop/", appBefore: null, appAfter: null })
    expect(demo.contentDigest).toBe(digest({ taskId: demo.taskId, platform: "web", initial: demo.initial, steps: demo.steps }))
    // The same steps in version 1: the same steps, a digest of the steps alone, no initial.
    const v1 = await load(writeDemo(fresh()))
    expect(v1).toMatchObject({ version: 1, platform: "web", initial: null, steps: demo.steps })
    expect(v1.contentDigest).toBe(digest({ taskId: v1.taskId, steps: v1.steps }))
  })

  test("given a v2 Android demo of UiAutomator page sources, when ingested, then one DemoIngested with platform, initial and apps; again is unchanged", async () => {
    const file = writeAndroidDemo(fresh())
    const r = await ingestTwice(file)
    expect(r.outcomes).toEqual(["written", "unchanged"])
    expect(r.stored).toEqual([true, true, true, true, true])
    expect(r.events.map((e) => e.type)).toEqual(["DemoIngested"])
    const data = r.events[0]!.data as any
    expect(data.platform).toBe("android")
    const dir = file.slice(0, -"/demo.json".length)
    const hashOf = (name: string) => sha256(readFileSync(join(dir, name)))
    expect(data.initial).toEqual({ screenshot: hashOf("home.png"), elements: hashOf("home.json"), aria: hashOf("home.xml") })
    expect(data.steps.map((s: any) => [s.urlBefore, s.appBefore, s.appAfter])).toEqual([
      [null, SETTINGS, NETWORK],
      [null, NETWORK, NETWORK]
    ])
    expect(JSON.parse(readFileSync(join(dir, "home.json"), "utf8"))).toMatchObject({
      url: null,
      app: SETTINGS,
      elements: expect.arrayContaining([expect.objectContaining({ name: "Search settings" })])
    })
    expect(data.contentDigest).toBe(r.demo.contentDigest)
  })

  test("given a v1 demo, when ingested, then its event is as it always was: neither platform nor initial", async () => {
    const r = await ingestTwice(writeDemo(fresh()))
    expect(r.outcomes).toEqual(["written", "unchanged"])
    expect(Object.keys(r.events[0]!.data).sort()).toEqual(["contentDigest", "demoId", "source", "steps", "taskId"])
  })

  test("given a missing, unknown, misnamed or linked initial blob, when loaded, then one line naming the file and the path", async () => {
    const missing = writeDemoV2(fresh())
    unlinkSync(join(missing.slice(0, -"/demo.json".length), "shots", "i0.png"))
    expect((await failure(missing)).reason).toBe(`blobs["i0.png"]: blob file 'shots/i0.png' not found beside the demo`)
    const unknown = await brokenV2((d) => (d.initial.screenshot = "nope.png"))
    expect(unknown.reason).toBe("initial.screenshot: unknown blob 'nope.png' (not a key of blobs)")
    expect(unknown.stepIndex).toBeNull()
    const wrong = sha256("something else")
    const misnamed = await brokenV2((d) => {
      d.initial.elements = wrong
      d.blobs[wrong] = "i0.json"
    })
    expect(misnamed.reason).toBe(`blobs.${wrong}: blob file 'i0.json' hashes to ${sha256(INITIAL_ELEMENTS)}, not to its name`)
    const linked = writeDemoV2(fresh())
    const shot = join(linked.slice(0, -"/demo.json".length), "shots", "i0.png")
    unlinkSync(shot)
    writeFileSync(join(tmp, "outside.png"), INITIAL_PNG)
    symlinkSync(join(tmp, "outside.png"), shot)
    expect((await failure(linked)).reason).toBe(`blobs["i0.png"]: 'shots/i0.png' is a symbolic link, not a file`)
  })

  test("given a field of the wrong version, when loaded, then one line names it", async () => {
    expect((await brokenV2((d) => delete d.initial)).reason).toBe("initial: missing field")
    expect((await brokenV2((d) => delete d.steps[1].appBefore)).reason).toBe("steps[1].appBefore: missing field")
    expect((await brokenV2((d) => (d.platform = "desktop"))).reason).toStartWith("platform: expected ")
    expect((await brokenV2((d) => (d.version = 3))).reason).toBe("version: unsupported demo format version 3 (this build reads 1, 2)")
    const v1 = validDemo()
    v1.initial = { screenshot: null, elements: null, aria: null }
    expect((await failure(writeDemo(fresh(), v1))).reason).toBe("initial: unknown field")
    const android = androidDemo()
    android.version = 1
    delete android.initial
    expect((await failure(writeAndroidDemo(fresh(), android))).reason).toStartWith('platform: expected "web"')
  })
})

describe("writeDemoFolder", () => {
  const put = (text: string) =>
    Effect.gen(function* () {
      return yield* (yield* BlobStore).put(new TextEncoder().encode(text))
    })
  /** Two Android-like steps from the blob store, written with the screen before them or not. */
  const write = (dir: string, screenBefore: "initial" | "none") =>
    Effect.runPromise(
      Effect.provide(
        Effect.gen(function* () {
          const after = { screenshot: null, elements: yield* put("after"), aria: yield* put("tree after") }
          const steps = [
            {
              action: { kind: "click" as const, target: { role: "button", name: "Go", elementId: "e1", text: null } },
              urlBefore: null,
              urlAfter: null,
              appBefore: SETTINGS,
              appAfter: NETWORK,
              observation: after
            },
            {
              action: { kind: "status" as const, status: "complete" as const },
              urlBefore: null,
              urlAfter: null,
              appBefore: NETWORK,
              appAfter: NETWORK,
              observation: after
            }
          ]
          const initial = { screenshot: yield* put("png before"), elements: yield* put("before"), aria: yield* put("tree before") }
          const ids = { demoId: "w", taskId: "settings-network-1", recordedWith: "script" } as const
          return {
            file: yield* writeDemoFolder(steps, dir, screenBefore === "initial" ? { ...ids, platform: "android", initial } : ids),
            initial
          }
        }),
        DirectoryBlobStore.layer({ dir: join(tmp, "blobs") })
      )
    )

  test("given the initial screen, when written, then version 2 with it, which loads back to the same hashes", async () => {
    const { file, initial } = await write(fresh(), "initial")
    const json = JSON.parse(readFileSync(file, "utf8"))
    expect(json).toMatchObject({ version: 2, platform: "android", initial })
    expect(json.blobs[initial.aria]).toBe(`blobs/${initial.aria}.xml`)
    const demo = await load(file)
    expect(demo.initial).toEqual(initial)
    expect(demo.steps.map((s) => s.appAfter)).toEqual([NETWORK, NETWORK])
  })

  test("given no initial screen on the web, when written, then version 1 as before: no initial, no app fields", async () => {
    const { file } = await write(fresh(), "none")
    const json = JSON.parse(readFileSync(file, "utf8"))
    expect(Object.keys(json)).toEqual(["format", "version", "demoId", "taskId", "platform", "recordedWith", "steps", "blobs"])
    expect(json.version).toBe(1)
    expect(Object.keys(json.steps[0])).toEqual(["action", "urlBefore", "urlAfter", "observation"])
    expect((await load(file)).initial).toBeNull()
  })
})
