import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs"
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
    Effect.provide(
      BlobStore.use((store) => store.put(new TextEncoder().encode("hi"))),
      DirectoryBlobStore.layer({ dir })
    )
  )
  expect(await Bun.file(join(dir, hash.slice(0, 2), hash)).text()).toBe("hi")
  expect(Array.from(new Bun.Glob("**/*").scanSync({ cwd: dir, dot: true }))).toEqual([join(hash.slice(0, 2), hash)])
})

test("a tampered file fails get with BlobCorrupt", async () => {
  const dir = tempDir()
  const layer = DirectoryBlobStore.layer({ dir })
  const hash = await Effect.runPromise(
    Effect.provide(
      BlobStore.use((store) => store.put(new TextEncoder().encode("original"))),
      layer
    )
  )
  writeFileSync(join(dir, hash.slice(0, 2), hash), "tampered")
  const error = await Effect.runPromise(Effect.provide(Effect.flip(BlobStore.use((store) => store.get(hash))), layer))
  expect(error._tag).toBe("BlobCorrupt")
  expect(error.message).toContain(hash)
})

const put = (dir: string, text: string) =>
  Effect.runPromise(
    Effect.provide(
      BlobStore.use((store) => store.put(new TextEncoder().encode(text))),
      DirectoryBlobStore.layer({ dir })
    )
  )

test("opening the store sweeps the temp files crashed writes left, but not one that may still be being written", async () => {
  const dir = tempDir()
  await put(dir, "first")
  const temps = join(dir, ".tmp")
  const stale = join(temps, `.tmp-4242-${crypto.randomUUID()}`)
  const fresh = join(temps, `.tmp-4243-${crypto.randomUUID()}`)
  mkdirSync(temps, { recursive: true })
  writeFileSync(stale, "half a blob")
  writeFileSync(fresh, "half another")
  const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000)
  utimesSync(stale, twoHoursAgo, twoHoursAgo)

  await put(dir, "second")
  expect(existsSync(stale)).toBe(false)
  expect(existsSync(fresh)).toBe(true)
})

test("a new blob directory and its blobs are readable by their owner only, whatever the umask", async () => {
  const dir = join(tempDir(), "data", "blobs")
  const previous = process.umask(0o000)
  let hash: string
  try {
    hash = await put(dir, "private")
  } finally {
    process.umask(previous)
  }
  const mode = (p: string) => statSync(p).mode & 0o777
  expect(mode(join(dir, ".."))).toBe(0o700)
  expect(mode(dir)).toBe(0o700)
  expect(mode(join(dir, hash.slice(0, 2)))).toBe(0o700)
  expect(mode(join(dir, hash.slice(0, 2), hash))).toBe(0o600)
})
