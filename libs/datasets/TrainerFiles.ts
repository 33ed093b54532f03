/**
 * `dataset export --for`: the selected records written in a trainer's own layout
 * (docs/datasets.md, "Trainer layouts"). The conversion is libs/domain TrainerFormats.ts;
 * this module only writes: TRL and LLaMA-Factory get JSON lines (a JSON array for an
 * LLaMA-Factory `.json`) with the PNGs in `images/` beside the file, LLaMA-Factory also its
 * `dataset_info.json` entry; verl gets one parquet file with the PNG bytes inside it.
 * Like the plain export, everything goes through a staging directory and renames.
 */
import { Effect } from "effect"
import { BlobStore, isBlobHash } from "@core/blobstore"
import type { DatasetFormat } from "@core/events"
import { llamaFactoryDatasetInfo, TRAINER_FORMATS, trainerRow, verlRow } from "@core/domain"
import type { SourceRecord, Trainer, VerlRow } from "@core/domain"
import { ParquetWriter, fileWriter } from "hyparquet-writer"
import { chmodSync, closeSync, existsSync, fsyncSync, openSync, readFileSync } from "node:fs"
import { basename, dirname, extname, join } from "node:path"
import { DatasetError } from "./DatasetError.ts"
import { imagePath, makeImageWriter, syncDir, writeFileDurably, writeStaged } from "./DatasetFiles.ts"
import type { RecordData } from "./DatasetFiles.ts"

export const DATASET_INFO = "dataset_info.json"
/** hyparquet's schema element, as the writer takes it (hyparquet itself is the writer's dependency, not ours). */
type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]["schema"][number]
/** Rows per parquet row group: with screenshots inside, a few megabytes each. */
const ROW_GROUP = 64

export interface TrainerExport {
  readonly trainer: Trainer
  readonly format: DatasetFormat
  /** Absolute path. */
  readonly out: string
  readonly records: ReadonlyArray<{ readonly runId: string; readonly data: RecordData }>
}

/**
 * Why `--for` cannot write this format to this file, or null. Each loader picks its reader by
 * the file's extension: LLaMA-Factory's loader.py by `FILEEXT2TYPE`, verl's rl_dataset.py
 * `_read_files_and_tokenize` by `.parquet`.
 */
export const trainerUsageError = (trainer: Trainer, format: DatasetFormat, out: string | undefined): string | null => {
  if (!TRAINER_FORMATS[trainer].includes(format))
    return `--for ${trainer} has no layout for ${format} records (it takes ${TRAINER_FORMATS[trainer].join(", ")})`
  if (out === undefined) return `--for ${trainer} needs --out: it writes files (and images) for the trainer to load`
  const ext = extname(out)
  if (trainer === "llama-factory" && ext !== ".json" && ext !== ".jsonl")
    return `--for llama-factory needs --out ending in .json or .jsonl (LLaMA-Factory picks its reader by the extension), got ${basename(out)}`
  if (trainer === "verl" && ext !== ".parquet")
    return `--for verl needs --out ending in .parquet (verl reads .parquet files), got ${basename(out)}`
  return null
}

const sourceOf = (r: TrainerExport["records"][number]): SourceRecord => ({
  recordId: r.data.recordId,
  runId: r.runId,
  round: r.data.round,
  format: r.data.format,
  taskId: r.data.taskId,
  trajectoryIds: r.data.trajectoryIds,
  body: r.data.body
})

const unconvertible = (o: TrainerExport, recordId: string, reason: string) =>
  new DatasetError({ message: `record ${recordId} cannot be written for ${o.trainer}: ${reason}; nothing written` })

const checkHashes = (o: TrainerExport, recordId: string, images: ReadonlyArray<string>) => {
  const bad = images.find((h) => !isBlobHash(h))
  return bad === undefined ? Effect.void : Effect.fail(unconvertible(o, recordId, `its image '${bad}' is not a blob hash`))
}

const fsError = (what: string) => (e: unknown) =>
  new DatasetError({ message: `${what}: ${e instanceof Error ? e.message : String(e)}`.replace(/\s*\n\s*/g, "; ") })

/** TRL or LLaMA-Factory: one row a line (or a JSON array), images beside the file. */
const writeJsonRows = (o: TrainerExport & { readonly trainer: "trl" | "llama-factory" }) =>
  writeStaged(o.out, (staging) =>
    Effect.gen(function* () {
      const images = makeImageWriter(staging, dirname(o.out))
      const rows: Array<string> = []
      for (const r of o.records) {
        const c = trainerRow(o.trainer, sourceOf(r), imagePath)
        if (!c.ok) return yield* unconvertible(o, r.data.recordId, c.reason)
        yield* checkHashes(o, r.data.recordId, c.images)
        yield* images.ensure(c.images, r.data.recordId)
        rows.push(JSON.stringify(c.row))
      }
      // A `.json` file is one array (as LLaMA-Factory's own data/*.json); anything else is JSON lines.
      const text = extname(o.out) === ".json" ? [`[${rows.join(",\n")}]\n`] : rows.map((l) => `${l}\n`)
      yield* Effect.try({ try: () => writeFileDurably(join(staging, basename(o.out)), text), catch: fsError(`cannot write ${o.out}`) })
      return images.referenced()
    })
  )

/**
 * The file's entry in `dataset_info.json` beside it, named after the file (`sft.jsonl` →
 * `sft`), other entries kept. Written after the data file, so an entry never names a file
 * that is not there.
 */
const updateDatasetInfo = (out: string, format: "sft" | "dpo") =>
  Effect.try({
    try: () => {
      const path = join(dirname(out), DATASET_INFO)
      const info: unknown = existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : {}
      if (typeof info !== "object" || info === null || Array.isArray(info)) throw new Error("it is not a JSON object")
      const name = basename(out, extname(out))
      const next = { ...(info as Record<string, unknown>), [name]: llamaFactoryDatasetInfo(format, basename(out)) }
      writeFileDurably(path, [`${JSON.stringify(next, null, 2)}\n`])
      syncDir(dirname(out))
      return name
    },
    catch: fsError(`cannot update ${join(dirname(out), DATASET_INFO)}`)
  })

const utf8 = (name: string): SchemaElement => ({ name, type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "REQUIRED" })
const int64 = (name: string): SchemaElement => ({ name, type: "INT64", repetition_type: "REQUIRED" })
/** A required 3-level LIST whose element is `element` (one leaf) or a group of `children`. */
const list = (name: string, element: SchemaElement, children: ReadonlyArray<SchemaElement> = []): Array<SchemaElement> => [
  { name, repetition_type: "REQUIRED", converted_type: "LIST", num_children: 1 },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  { ...element, name: "element" },
  ...children
]
const group = (name: string, children: ReadonlyArray<SchemaElement>): Array<SchemaElement> => [
  { name, repetition_type: "REQUIRED", num_children: children.length },
  ...children
]

/**
 * verl's columns as pyarrow and `datasets` read them back: `prompt` a list of {role,
 * content} structs, `images` a list of {bytes} structs (rl_dataset.py `_build_messages` opens
 * `image["bytes"]`), `reward_model` and `extra_info` structs, integers as int64.
 */
export const verlSchema = (format: DatasetFormat): Array<SchemaElement> => {
  const extra = [
    utf8("split"),
    int64("index"),
    utf8("record_id"),
    utf8("run_id"),
    int64("round"),
    utf8("format"),
    utf8("task_id"),
    ...list("trajectory_ids", utf8("element")),
    ...(format === "dpo" ? [utf8("rejected")] : [])
  ]
  const extraChildren = 8 + (format === "dpo" ? 1 : 0)
  return [
    { name: "root", num_children: 6 },
    utf8("data_source"),
    ...list("prompt", { name: "element", repetition_type: "REQUIRED", num_children: 2 }, [utf8("role"), utf8("content")]),
    ...list("images", { name: "element", repetition_type: "REQUIRED", num_children: 1 }, [
      { name: "bytes", type: "BYTE_ARRAY", repetition_type: "REQUIRED" }
    ]),
    utf8("ability"),
    ...group("reward_model", [utf8("style"), utf8("ground_truth")]),
    { name: "extra_info", repetition_type: "REQUIRED", num_children: extraChildren },
    ...extra
  ]
}

const verlColumns = (rows: ReadonlyArray<VerlRow & { readonly bytes: ReadonlyArray<Uint8Array> }>) => [
  { name: "data_source", data: rows.map((r) => r.data_source) },
  { name: "prompt", data: rows.map((r) => r.prompt.map((m) => ({ role: m.role, content: m.content }))) },
  { name: "images", data: rows.map((r) => r.bytes.map((bytes) => ({ bytes }))) },
  { name: "ability", data: rows.map((r) => r.ability) },
  { name: "reward_model", data: rows.map((r) => r.reward_model) },
  {
    name: "extra_info",
    data: rows.map((r) => ({ ...r.extra_info, index: BigInt(r.extra_info.index), round: BigInt(r.extra_info.round) }))
  }
]

/** verl: one parquet file, the PNG bytes in it, written a row group at a time. */
const writeParquet = (o: TrainerExport) =>
  writeStaged(o.out, (staging) =>
    Effect.gen(function* () {
      const blobs = yield* BlobStore
      const path = join(staging, basename(o.out))
      const writer = new ParquetWriter({ writer: fileWriter(path), schema: verlSchema(o.format), createdBy: "core dataset export" })
      const referenced = new Set<string>()
      for (let start = 0; start < o.records.length; start += ROW_GROUP) {
        const rows: Array<VerlRow & { bytes: ReadonlyArray<Uint8Array> }> = []
        for (const [k, r] of o.records.slice(start, start + ROW_GROUP).entries()) {
          const c = verlRow(sourceOf(r), start + k)
          if (!c.ok) return yield* unconvertible(o, r.data.recordId, c.reason)
          yield* checkHashes(o, r.data.recordId, c.images)
          const bytes = yield* Effect.forEach(c.images, (h) =>
            blobs
              .get(h)
              .pipe(Effect.mapError((e) => new DatasetError({ message: `image ${h} of record ${r.data.recordId}: ${e.message}` })))
          )
          for (const h of c.images) referenced.add(h)
          rows.push({ ...c.row, bytes })
        }
        yield* Effect.try({
          try: () => writer.write({ columnData: verlColumns(rows), rowGroupSize: rows.length }),
          catch: fsError(`cannot write ${o.out}`)
        })
      }
      yield* Effect.try({
        try: () => {
          writer.finish()
          chmodSync(path, 0o600)
          const fd = openSync(path, "r")
          try {
            fsyncSync(fd)
          } finally {
            closeSync(fd)
          }
        },
        catch: fsError(`cannot write ${o.out}`)
      })
      return referenced.size
    })
  )

/** Writes the records in the trainer's layout; the number of images the files hold or name. */
export const writeTrainerFiles = (
  o: TrainerExport
): Effect.Effect<{ images: number; datasetInfo: string | null }, DatasetError, BlobStore> =>
  Effect.gen(function* () {
    if (o.trainer === "verl") return { images: yield* writeParquet(o), datasetInfo: null }
    const images = yield* writeJsonRows({ ...o, trainer: o.trainer })
    if (o.trainer === "trl") return { images, datasetInfo: null }
    const name = yield* updateDatasetInfo(o.out, o.format === "dpo" ? "dpo" : "sft")
    return { images, datasetInfo: name }
  })
