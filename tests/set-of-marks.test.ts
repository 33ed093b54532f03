/**
 * Set-of-marks on a bundled site in real Chromium, through the web environment: with
 * `setOfMarks` an observation also stores the screenshot with the element ids drawn on
 * (`observation.marks`), and nothing else it records changes — the same episode without
 * marks records the same URL, element list and aria snapshot, and no `marks` key at all.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BlobStore, DirectoryBlobStore } from "@core/blobstore"
import { BrowserPool, WebEnvironment } from "@core/env-web"
import { marksOf } from "@core/environment"
import type { FullObservation } from "@core/environment"
import { episodeSource, startSites } from "@core/sites"

const sites = startSites()
const dir = mkdtempSync(join(tmpdir(), "core-set-of-marks-"))
const runtime = ManagedRuntime.make(Layer.merge(BrowserPool.layer(), DirectoryBlobStore.layer({ dir })))
afterAll(async () => {
  await runtime.dispose()
  await sites.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** A PNG's width and height, from its IHDR chunk; throws when the bytes are not a PNG. */
const pngSize = (bytes: Uint8Array): { width: number; height: number } => {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
  if (!signature.every((b, i) => bytes[i] === b)) throw new Error("not a PNG signature")
  if (new TextDecoder().decode(bytes.slice(12, 16)) !== "IHDR") throw new Error("no IHDR chunk first")
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return { width: view.getUint32(16), height: view.getUint32(20) }
}

/** One episode of the shop's home page (seed 3): its first observation, and with marks a second after `wait`. */
const episode = (setOfMarks: boolean) =>
  runtime.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const env = yield* WebEnvironment.make({ setOfMarks, screenshots: "all", episodes: episodeSource(sites) })
        const first = yield* env.reset({ taskId: "marks", site: "shop", siteSeed: 3 })
        const again: FullObservation | null = setOfMarks ? yield* env.step({ kind: "wait", ms: 0 }) : null
        const blobs = yield* BlobStore
        const screenshot = yield* blobs.get(first.observation.screenshot!)
        const marks = first.observation.marks == null ? null : yield* blobs.get(first.observation.marks)
        return { first, again, screenshot, marks }
      })
    )
  )

test("marks: a stored PNG of the screenshot's size that differs from it; URL, elements and aria as without marks", async () => {
  const marked = await episode(true)
  const plain = await episode(false)

  // Stored as its own blob, named in the observation, the same bytes the environment held.
  expect(marked.first.observation.marks).toMatch(/^[0-9a-f]{64}$/)
  expect(marked.marks).not.toBeNull()
  expect(Buffer.from(marked.marks!).equals(Buffer.from(marked.first.marks!))).toBe(true)
  expect(marked.first.observation.marks).not.toBe(marked.first.observation.screenshot)
  expect(Buffer.from(marked.marks!).equals(Buffer.from(marked.screenshot))).toBe(false)
  expect(pngSize(marked.marks!)).toEqual(pngSize(marked.screenshot))
  expect(pngSize(marked.screenshot).width).toBeGreaterThan(0)
  // The shop's home page has elements to mark, and every mark is an id the element list shows.
  const ids = new Set(marked.first.elements.map((e) => e.id))
  const marks = marksOf(marked.first.elements)
  expect(marks.length).toBeGreaterThan(5)
  expect(marks.every((m) => ids.has(m.id))).toBe(true)

  // Without marks, the observation is what it always was: no `marks` key.
  expect("marks" in plain.first.observation).toBe(false)
  expect("marks" in plain.first).toBe(false)
  // The overlay is drawn after the reads: the same page records the same URL, element list, aria and
  // plain screenshot either way (a static page, the caret hidden: Chromium renders it to the same bytes).
  const { marks: _, ...rest } = marked.first.observation
  expect(rest).toEqual(plain.first.observation)
  expect(marked.first.observation.url).toBe(plain.first.observation.url)
  expect(marked.first.observation.elements).toBe(plain.first.observation.elements)
  expect(marked.first.observation.aria).toBe(plain.first.observation.aria)
  expect(marked.first.elements).toEqual(plain.first.elements)
  expect(marked.first.view.text).toBe(plain.first.view.text)

  // And it is gone afterwards: the next observation of the page reads the very same elements and aria.
  const again = marked.again!.observation
  expect([again.url, again.elements, again.aria, again.error]).toEqual([
    marked.first.observation.url,
    marked.first.observation.elements,
    marked.first.observation.aria,
    null
  ])
  expect(again.marks).toMatch(/^[0-9a-f]{64}$/)
}, 60_000)
