/**
 * A follow trainer's state folder (`<dataDir>/trainer/<consumer>/` by default): `trainer.json`
 * says which consumer and seed it belongs to, and `records.jsonl` holds every record it learns
 * from, once, with the stream sequence of the commit that delivered it — appended and
 * fsynced before that commit is acknowledged, so after any crash it holds all it acknowledged.
 * A version is trained from this file alone, which is why it is a pure function of its records.
 *
 * @example
 * const state = yield* openTrainerState(".core/trainer/nightly", "nightly", undefined) // needs Scope
 * yield* state.append([held])
 */
import { Effect } from "effect"
import { mkdirPrivate, openAppendFile, readAppendedLines, syncDir, writeFileDurably } from "@core/datasets"
import type { DatasetError } from "@core/datasets"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { TrainerStateError } from "./TrainerError.ts"

/** A record the trainer learns from, and where the stream delivered it. */
export interface HeldRecord {
  /** The stream sequence (log position) of its commit, and its place among the commit's events. */
  readonly seq: number
  readonly index: number
  readonly recordId: string
  readonly runId: string
  readonly round: number
  readonly format: string
  readonly trajectoryIds: ReadonlyArray<string>
  readonly body: unknown
}

const isHeld = (u: unknown): HeldRecord => {
  const r = u as Partial<HeldRecord> | null
  if (
    typeof r?.seq !== "number" ||
    typeof r.index !== "number" ||
    typeof r.recordId !== "string" ||
    typeof r.format !== "string" ||
    !Array.isArray(r.trajectoryIds)
  )
    throw new Error("is not a record a trainer holds")
  return r as HeldRecord
}

/** In the order a version learns them: by stream sequence, then by place in the commit. */
export const byDelivery = (a: HeldRecord, b: HeldRecord) => a.seq - b.seq || a.index - b.index

interface Meta {
  readonly consumer: string
  readonly seed: string
}

const readMeta = (file: string): Meta | null => {
  if (!existsSync(file)) return null
  const m = JSON.parse(readFileSync(file, "utf8")) as Partial<Meta>
  if (typeof m.consumer !== "string" || typeof m.seed !== "string") throw new Error(`${file} is not a trainer's state`)
  return { consumer: m.consumer, seed: m.seed }
}

/**
 * Opens (or makes) the folder for `consumer`. `seed` undefined keeps the folder's seed (the
 * consumer's name for a new one); another seed than the folder's is refused, since its
 * versions would not be one trainer's sequence.
 */
export const openTrainerState = (dir: string, consumer: string, seed: string | undefined) =>
  Effect.gen(function* () {
    const failed = (e: unknown) => new TrainerStateError({ dir, reason: e instanceof Error ? e.message : String(e) })
    const metaFile = join(dir, "trainer.json")
    const meta = yield* Effect.try({ try: () => readMeta(metaFile), catch: failed })
    if (meta !== null && meta.consumer !== consumer)
      return yield* new TrainerStateError({ dir, reason: `belongs to consumer ${meta.consumer}, not ${consumer}: pass another --state` })
    if (meta !== null && seed !== undefined && meta.seed !== seed)
      return yield* new TrainerStateError({
        dir,
        reason: `was made with seed ${JSON.stringify(meta.seed)}, not ${JSON.stringify(seed)}: leave --seed out or pick another --consumer`
      })
    const chosen = meta?.seed ?? seed ?? consumer
    if (meta === null)
      yield* Effect.try({
        try: () => {
          mkdirPrivate(dir)
          writeFileDurably(metaFile, [JSON.stringify({ consumer, seed: chosen })])
          syncDir(dir)
        },
        catch: failed
      })
    const file = join(dir, "records.jsonl")
    const asState = (e: DatasetError) => new TrainerStateError({ dir, reason: e.message })
    const read = yield* Effect.mapError(readAppendedLines(file, isHeld), asState)
    const { append } = yield* Effect.mapError(openAppendFile(file), asState)
    yield* Effect.try({ try: () => syncDir(dir), catch: failed })
    return {
      seed: chosen,
      records: read.lines,
      tornBytes: read.tornBytes,
      /** Appends and fsyncs: on disk before the commits that delivered them are acknowledged. */
      append: (records: ReadonlyArray<HeldRecord>) =>
        Effect.mapError(append(records.map((r) => `${JSON.stringify(r)}\n`).join("")), asState)
    }
  })
