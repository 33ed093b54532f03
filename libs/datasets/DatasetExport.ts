/**
 * `dataset export --out`: the selected records written as files a trainer reads, either as
 * core's JSON lines with their images beside them or in a trainer's own layout
 * (TrainerFiles.ts). Both go through a staging directory, so a failed export leaves nothing.
 *
 * @example
 * const { images, layout } = yield* writeRecords(selected, "sft", "/data/sft.jsonl", undefined) // needs BlobStore
 */
import { Effect } from "effect"
import type { DatasetFormat } from "@core/events"
import type { Trainer } from "@core/domain"
import { basename, dirname, join } from "node:path"
import { DatasetError } from "./DatasetError.ts"
import { imageHashes, makeImageWriter, recordLine, writeFileDurably, writeStaged } from "./DatasetFiles.ts"
import type { DatasetRecord } from "./DatasetLog.ts"
import { writeTrainerFiles } from "./TrainerFiles.ts"

/** How many images the written records name, and the layout for a summary line ("" for core's own). */
export const writeRecords = (selected: ReadonlyArray<DatasetRecord>, format: DatasetFormat, out: string, trainer: Trainer | undefined) =>
  Effect.gen(function* () {
    if (trainer !== undefined) {
      const written = yield* writeTrainerFiles({ trainer, format, out, records: selected })
      const entry = written.datasetInfo === null ? "" : ` (dataset_info.json entry '${written.datasetInfo}')`
      return { images: written.images, layout: ` in ${trainer}'s layout${entry}` }
    }
    const images = yield* writeStaged(out, (staging) =>
      Effect.gen(function* () {
        const writer = makeImageWriter(staging, dirname(out))
        for (const r of selected) yield* writer.ensure(imageHashes(r.data.body), r.data.recordId)
        yield* Effect.try({
          try: () =>
            writeFileDurably(
              join(staging, basename(out)),
              selected.map((r) => `${recordLine(r.runId, r.data, "paths")}\n`)
            ),
          catch: (e) => new DatasetError({ message: `cannot write ${out}: ${(e as Error).message}` })
        })
        return writer.referenced()
      })
    )
    return { images, layout: "" }
  })
