/**
 * The queue key and the job nonces derived from it: one key per data directory, kept
 * between runs (a resumed driver derives the same nonces), refused when others could read
 * it or when it is not a key; nonces apart per run and per job.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { chmodSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { jobNonce, messageId, QUEUE_KEY_FILE, queueKey } from "../mod.ts"

const root = mkdtempSync(join(tmpdir(), "core-queue-key-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const fresh = (name: string) => join(root, name)
const keyOf = (dir: string) => Effect.runPromise(queueKey(dir))
const refusalOf = (dir: string) => Effect.runPromise(Effect.flip(queueKey(dir))).then((e) => e.message)

describe("queueKey", () => {
  test("made once, 0600, and the same on every later read", async () => {
    const dir = fresh("a")
    const first = await keyOf(dir)
    expect(first.length).toBe(32)
    expect(statSync(join(dir, QUEUE_KEY_FILE)).mode & 0o777).toBe(0o600)
    expect(Buffer.from(await keyOf(dir)).equals(Buffer.from(first))).toBe(true)
    // Another data directory has another key.
    expect(Buffer.from(await keyOf(fresh("b"))).equals(Buffer.from(first))).toBe(false)
  })

  test("a key others can read, a file that is not a key, a link: one line each", async () => {
    const open = fresh("open")
    await keyOf(open)
    chmodSync(join(open, QUEUE_KEY_FILE), 0o644)
    expect(await refusalOf(open)).toMatch(/^work queue key: .*queue\.key is readable by others \(mode 644\); chmod 600 it$/)
    const short = fresh("short")
    await keyOf(fresh("short"))
    writeFileSync(join(short, QUEUE_KEY_FILE), "x", { mode: 0o600 })
    expect(await refusalOf(short)).toMatch(/is not a queue key \(32 bytes\); remove it to make a new one$/)
    const linked = fresh("linked")
    await keyOf(fresh("target"))
    await keyOf(linked)
    rmSync(join(linked, QUEUE_KEY_FILE))
    symlinkSync(join(root, "target", QUEUE_KEY_FILE), join(linked, QUEUE_KEY_FILE))
    expect(await refusalOf(linked)).toMatch(/^work queue key: /)
    for (const e of [open, short, linked]) expect((await refusalOf(e)).split("\n")).toHaveLength(1)
  })
})

test("nonces: apart per run and per job, and the message id carries only a digest of one", () => {
  const key = new Uint8Array(32).fill(7)
  const n = jobNonce(key, "run-1", "r1-s0-t1")
  expect(n).toMatch(/^[0-9a-f]{64}$/)
  expect(jobNonce(key, "run-1", "r1-s0-t1")).toBe(n)
  expect(
    new Set([n, jobNonce(key, "run-2", "r1-s0-t1"), jobNonce(key, "run-1", "r1-s1-t1"), jobNonce(new Uint8Array(32), "run-1", "r1-s0-t1")])
      .size
  ).toBe(4)
  // Run and job ids joined so that no two pairs collide ("run-1" + "2-x" is not "run-12" + "-x").
  expect(jobNonce(key, "run-1", "2-x")).not.toBe(jobNonce(key, "run-12", "-x"))
  const id = messageId("run-1", "r1-s0-t1", n)
  expect(id.startsWith("run-1:r1-s0-t1:")).toBe(true)
  expect(id).not.toContain(n)
})
