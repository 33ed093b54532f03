import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import { BlobStore, DirectoryBlobStore } from "../mod.ts"
import { conformance } from "./conformance.ts"

const dirs: Array<string> = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "core-blobs-"))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

conformance("directory", () => DirectoryBlobStore.layer({ dir: tempDir() }))

test("blobs sit under a two-hex-character fan-out directory, with no temp files left", async () => {
  const dir = tempDir()
  const hash = await Effect.runPromise(
    Effect.provide(BlobStore.use((store) => store.put(new TextEncoder().encode("hi"))), DirectoryBlobStore.layer({ dir }))
  )
  expect(await Bun.file(join(dir, hash.slice(0, 2), hash)).text()).toBe("hi")
  expect(Array.from(new Bun.Glob("**/*").scanSync({ cwd: dir, dot: true }))).toEqual([join(hash.slice(0, 2), hash)])
})

test("a tampered file fails get with BlobCorrupt", async () => {
  const dir = tempDir()
  const layer = DirectoryBlobStore.layer({ dir })
  const hash = await Effect.runPromise(
    Effect.provide(BlobStore.use((store) => store.put(new TextEncoder().encode("original"))), layer)
  )
  writeFileSync(join(dir, hash.slice(0, 2), hash), "tampered")
  const error = await Effect.runPromise(
    Effect.provide(Effect.flip(BlobStore.use((store) => store.get(hash))), layer)
  )
  expect(error._tag).toBe("BlobCorrupt")
  expect(error.message).toContain(hash)
})
