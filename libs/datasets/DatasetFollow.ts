/**
 * `dataset follow`'s loop: the durable consumer (DurableConsumer.ts) on the dataset subjects,
 * records appended and fsynced before their commit is acknowledged, and a file's existing
 * record ids skipped. Delivery is at-least-once (a crash between the fsync and the ack
 * redelivers the commit); dedupe by record id makes the file exactly-once.
 */
import { Effect } from "effect"
import type { DatasetFormat } from "@core/events"
import type { NatsCredentials } from "@core/eventstore"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { DatasetError } from "./DatasetError.ts"
import { imageHashes, makeImageWriter, openAppendFile, readRecordIds, recordLine, runIdOf, syncDir } from "./DatasetFiles.ts"
import { consumeDurably, SUBJECT_PREFIX } from "./DurableConsumer.ts"
import type { Delivery } from "./DurableConsumer.ts"

export interface FollowOptions {
  readonly url: string
  readonly credentials?: NatsCredentials
  readonly consumer: string
  readonly format: DatasetFormat | undefined
  readonly run: string | undefined
  /** Absolute path; undefined = stdout. */
  readonly out: string | undefined
  readonly ackWaitSeconds: number
}

// The format filter is applied here, not by the server; a consumer that acked only sft
// records must never be resumed for dpo, so the filter is written into its description.
const describeConsumer = (o: FollowOptions) => `core dataset follow: format=${o.format ?? "all"}`

/** The subject of the dataset events of one run, or of every run. */
export const datasetSubject = (run: string | undefined) => `${SUBJECT_PREFIX}.run.${run ?? "*"}.dataset.*`

export const followDataset = (o: FollowOptions) =>
  Effect.gen(function* () {
    const seen = new Set<string>()
    let append: ((text: string) => Effect.Effect<void, DatasetError>) | undefined
    const images = o.out === undefined ? undefined : makeImageWriter(dirname(o.out))
    if (o.out !== undefined) {
      const out = o.out
      yield* Effect.try({
        try: () => mkdirSync(dirname(out), { recursive: true }),
        catch: (e) => new DatasetError({ message: `cannot create ${dirname(out)}: ${(e as Error).message}` })
      })
      const existing = yield* readRecordIds(out)
      for (const id of existing.ids) seen.add(id)
      append = (yield* openAppendFile(out)).append
      yield* Effect.try({
        try: () => syncDir(dirname(out)),
        catch: (e) => new DatasetError({ message: `cannot sync ${dirname(out)}: ${(e as Error).message}` })
      })
      console.error(
        `follow: ${out} holds ${existing.ids.size} records${existing.tornBytes > 0 ? ` (cut a torn last line of ${existing.tornBytes} bytes left by a crash)` : ""}`
      )
    }

    let written = 0
    let skipped = 0
    const counts = () => `${written} records written (${skipped} skipped as duplicates)`

    const handle = (batch: ReadonlyArray<Delivery>) =>
      Effect.gen(function* () {
        const lines: Array<string> = []
        for (const { event: e } of batch.flatMap((d) => d.events)) {
          if (e.type !== "DatasetRecordEmitted" || (o.format !== undefined && e.data.format !== o.format)) continue
          if (seen.has(e.data.recordId)) {
            skipped++
            continue
          }
          seen.add(e.data.recordId)
          // Images first: a line in the file promises its images are beside it.
          if (images) yield* images.ensure(imageHashes(e.data.body), e.data.recordId)
          lines.push(`${recordLine(runIdOf(e), e.data, images ? "paths" : "hashes")}\n`)
        }
        if (lines.length > 0) {
          if (images) yield* images.sync
          if (append) yield* append(lines.join(""))
          else yield* Effect.promise(() => Bun.write(Bun.stdout, lines.join("")))
        }
        written += lines.length
      })

    const signal = yield* consumeDurably(
      {
        url: o.url,
        credentials: o.credentials ?? {},
        consumer: o.consumer,
        filter: datasetSubject(o.run),
        description: describeConsumer(o),
        ackWaitSeconds: o.ackWaitSeconds,
        client: `core-dataset-follow-${o.consumer}`,
        label: "follow",
        into: `${o.format ? `, format ${o.format}` : ""} → ${o.out ?? "stdout"}`
      },
      { handle, progress: counts }
    )
    console.error(`follow: stopped on ${signal}: ${counts()}`)
  }).pipe(Effect.scoped)
