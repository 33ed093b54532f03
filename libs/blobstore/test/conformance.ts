/**
 * The behaviour every BlobStore layer must share; each backend's test file runs it.
 */
import { createHash, randomBytes } from "node:crypto"
import { describe, expect, test } from "bun:test"
import { Effect, type Layer } from "effect"
import { BlobStore } from "../mod.ts"
import type { BlobStoreError } from "../mod.ts"

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

/** Random bytes keep runs from colliding in a store that outlives them (a shared bucket). */
const fresh = (size: number) => new Uint8Array(randomBytes(size))

export const conformance = (name: string, makeLayer: () => Layer.Layer<BlobStore, BlobStoreError>) =>
  describe(`BlobStore conformance: ${name}`, () => {
    const run = <A, E>(program: Effect.Effect<A, E, BlobStore>): Promise<A> => Effect.runPromise(Effect.provide(program, makeLayer()))

    test("put returns the sha256 of the bytes and get returns them unchanged", async () => {
      const bytes = fresh(1000)
      const [hash, back] = await run(
        Effect.gen(function* () {
          const store = yield* BlobStore
          const hash = yield* store.put(bytes)
          return [hash, yield* store.get(hash)] as const
        })
      )
      expect(hash).toBe(sha256(bytes))
      expect(back).toBeInstanceOf(Uint8Array)
      expect(back).toEqual(bytes)
    })

    test("has is false before put and true after", async () => {
      const bytes = fresh(64)
      const hash = sha256(bytes)
      const [before, after] = await run(
        Effect.gen(function* () {
          const store = yield* BlobStore
          const before = yield* store.has(hash)
          yield* store.put(bytes)
          return [before, yield* store.has(hash)] as const
        })
      )
      expect(before).toBe(false)
      expect(after).toBe(true)
    })

    test("putting the same bytes twice, or concurrently, yields one blob and no error", async () => {
      const bytes = fresh(300_000)
      const [first, second, concurrent, back] = await run(
        Effect.gen(function* () {
          const store = yield* BlobStore
          const first = yield* store.put(bytes)
          const second = yield* store.put(bytes)
          const other = fresh(300_000)
          const concurrent = yield* Effect.all([store.put(other), store.put(other), store.put(other)], {
            concurrency: "unbounded"
          })
          return [first, second, concurrent, yield* store.get(sha256(other))] as const
        })
      )
      expect(second).toBe(first)
      expect(new Set(concurrent).size).toBe(1)
      expect(sha256(back)).toBe(concurrent[0]!)
    })

    test("a 5 MB blob round-trips", async () => {
      const bytes = fresh(5 * 1024 * 1024)
      const back = await run(
        Effect.gen(function* () {
          const store = yield* BlobStore
          return yield* store.get(yield* store.put(bytes))
        })
      )
      expect(back.byteLength).toBe(bytes.byteLength)
      expect(sha256(back)).toBe(sha256(bytes))
    })

    test("an empty blob round-trips", async () => {
      const empty = new Uint8Array(0)
      const [hash, back, has] = await run(
        Effect.gen(function* () {
          const store = yield* BlobStore
          const hash = yield* store.put(empty)
          return [hash, yield* store.get(hash), yield* store.has(hash)] as const
        })
      )
      expect(hash).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
      expect(back.byteLength).toBe(0)
      expect(has).toBe(true)
    })

    test("get of an unknown hash fails with BlobNotFound", async () => {
      const hash = sha256(fresh(32))
      const error = await run(Effect.flip(BlobStore.use((store) => store.get(hash))))
      expect(error._tag).toBe("BlobNotFound")
      expect(error.message).toBe(`blob ${hash} not found`)
    })

    test("malformed hashes fail with BlobStoreError, never reaching the backend", async () => {
      const bad = ["", "abc", "../../../etc/passwd", "A".repeat(64), `${"0".repeat(62)}/x`, "0".repeat(65), "*", ">"]
      const errors = await run(
        Effect.gen(function* () {
          const store = yield* BlobStore
          const errors = []
          for (const hash of bad) {
            errors.push(yield* Effect.flip(store.get(hash)), yield* Effect.flip(store.has(hash)))
          }
          return errors
        })
      )
      for (const error of errors) {
        expect(error._tag).toBe("BlobStoreError")
        expect(error.message).toContain("invalid blob hash")
        expect(error.message).not.toContain("\n")
      }
    })
  })
