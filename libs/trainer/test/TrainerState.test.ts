/**
 * A follow trainer's state folder: what it holds survives a restart, a torn last line left by
 * a crash is cut away, and a folder made for another consumer or seed is refused in one line.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { openTrainerState } from "../TrainerState.ts"
import type { HeldRecord } from "../TrainerState.ts"

const tmp = mkdtempSync(join(tmpdir(), "core-trainer-state-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const open = (dir: string, consumer: string, seed: string | undefined) =>
  Effect.runPromise(Effect.scoped(openTrainerState(dir, consumer, seed)))
const openAndAppend = (dir: string, consumer: string, records: ReadonlyArray<HeldRecord>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(openTrainerState(dir, consumer, undefined), (s) => s.append(records))))
const failure = (dir: string, consumer: string, seed: string | undefined) =>
  Effect.runPromise(Effect.flip(Effect.scoped(openTrainerState(dir, consumer, seed))))

const held = (seq: number): HeldRecord => ({
  seq,
  index: 0,
  recordId: `r${seq}`,
  runId: "run-1",
  round: 1,
  format: "sft",
  trajectoryIds: ["t"],
  body: { messages: [], meta: { seq } }
})

test("records held survive a restart, a torn last line is cut, the seed is the folder's", async () => {
  const dir = join(tmp, "nightly")
  const fresh = await open(dir, "nightly", undefined)
  expect(fresh).toMatchObject({ seed: "nightly", records: [], tornBytes: 0 })
  await openAndAppend(dir, "nightly", [held(3), held(5)])
  appendFileSync(join(dir, "records.jsonl"), '{"seq":9,"index":0,"recor')
  const again = await open(dir, "nightly", undefined)
  expect(again.records).toEqual([held(3), held(5)])
  expect(again.tornBytes).toBe(25)
  expect(readFileSync(join(dir, "records.jsonl"), "utf8").endsWith("}\n")).toBe(true)
  expect((await open(dir, "nightly", "nightly")).seed).toBe("nightly")
})

test("another consumer's folder, another seed, a line not its own: refused", async () => {
  const dir = join(tmp, "seeded")
  expect((await open(dir, "seeded", "s1")).seed).toBe("s1")
  expect((await open(dir, "seeded", undefined)).seed).toBe("s1")
  expect((await failure(dir, "seeded", "s2")).message).toContain('was made with seed "s1", not "s2"')
  expect((await failure(dir, "other", undefined)).message).toContain("belongs to consumer seeded, not other")
  appendFileSync(join(dir, "records.jsonl"), '{"record_id":"x"}\n')
  const e = await failure(dir, "seeded", undefined)
  expect(e._tag).toBe("TrainerStateError")
  expect(e.message).toContain("line 1 is not a record a trainer holds")
})
