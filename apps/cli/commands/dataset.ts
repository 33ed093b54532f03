/**
 * `bun core dataset export` and `bun core dataset follow`: the run's training data
 * (its DatasetRecordEmitted events) as JSONL plus PNG files, once from the log or live
 * through a durable JetStream consumer. Line format and semantics: docs/datasets.md.
 */
import { Effect } from "effect"
import type { DatasetFormat } from "@core/events"
import { TRAINERS } from "@core/domain"
import type { Trainer } from "@core/domain"
import { resolve } from "node:path"
import type { Command, ParsedArgs } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { CliError, UsageError } from "../Cli.ts"
import {
  followDataset,
  imageHashes,
  readRunDataset,
  recordLine,
  sealMismatches,
  selectRecords,
  withImages,
  writeRecords
} from "@core/datasets"
import type { DatasetRecord } from "@core/datasets"
import { isToken } from "@core/engine"
import { openStore } from "@core/run"
import { trainerUsageError } from "@core/datasets"
import { commonConfigFlags } from "../ConfigFlags.ts"

const FORMATS: ReadonlyArray<DatasetFormat> = ["sft", "dpo", "rollout"]

const required = (args: ParsedArgs, name: string, command: string) =>
  typeof args.flags[name] === "string" && args.flags[name] !== ""
    ? Effect.succeed(args.flags[name] as string)
    : Effect.fail(new UsageError({ message: `--${name} is required; see 'bun core ${command} --help'` }))

const checkRun = (run: string) =>
  isToken(run)
    ? Effect.void
    : Effect.fail(new UsageError({ message: `--run ${JSON.stringify(run)} is not a run id (letters, digits, '-' and '_')` }))

const list = (ns: Iterable<number>) => [...ns].join(", ")

type Selected = ReadonlyArray<DatasetRecord>

/** The selected records to stdout (images as hashes), or written to `out` (DatasetExport.ts). */
const writeSelected = (selected: Selected, format: DatasetFormat, out: string | undefined, trainer: Trainer | undefined) =>
  out !== undefined
    ? writeRecords(selected, format, out, trainer)
    : Effect.map(
        Effect.promise(() => Bun.write(Bun.stdout, selected.map((r) => `${recordLine(r.runId, r.data, "hashes")}\n`).join(""))),
        () => ({ images: new Set(selected.flatMap((r) => imageHashes(r.data.body))).size, layout: "" })
      )

export const datasetExport: Command<Failure> = {
  name: "dataset export",
  summary: "write a run's dataset records of one format as JSONL with their images, or in a trainer's layout",
  flags: {
    run: { kind: "string", description: "the run whose records to export (required)" },
    round: { kind: "number", description: "only this round (default: every round of the run)" },
    format: { kind: "string", description: "record format (required)", choices: FORMATS },
    out: { kind: "string", description: "JSONL file to write; images go to images/ beside it (default: stdout, images as hashes)" },
    for: {
      kind: "string",
      description:
        "write the layout this trainer loads (needs --out): trl (sft, dpo, rollout as stepwise supervision), llama-factory (sft, dpo; .json/.jsonl plus dataset_info.json), verl (sft, dpo; .parquet)",
      choices: TRAINERS
    },
    images: {
      kind: "string",
      description: "plain (the screenshots, default) or marked (the set-of-marks images where the run took them: what a model policy saw)",
      choices: ["plain", "marked"]
    },
    json: { kind: "boolean", description: "print { run, format, rounds, records, images, out, sealed } on stdout (and for, with --for)" },
    ...commonConfigFlags
  },
  run: (args) =>
    Effect.gen(function* () {
      const run = yield* required(args, "run", "dataset export")
      yield* checkRun(run)
      const format = (yield* required(args, "format", "dataset export")) as DatasetFormat
      const round = args.flags.round as number | undefined
      if (round !== undefined && (!Number.isInteger(round) || round < 0)) {
        return yield* new UsageError({ message: `--round must be a round number ≥ 0, got ${round}` })
      }
      const out = typeof args.flags.out === "string" ? resolve(args.flags.out) : undefined
      if (args.flags.json === true && out === undefined) {
        return yield* new UsageError({ message: "--json needs --out: without it the records themselves go to stdout" })
      }
      const trainer = args.flags.for as Trainer | undefined
      const unusable = trainer === undefined ? null : trainerUsageError(trainer, format, out)
      if (unusable !== null) return yield* new UsageError({ message: unusable })

      const opened = yield* openStore(args)
      const program = Effect.gen(function* () {
        const dataset = yield* readRunDataset(run)
        if (dataset.rounds.length === 0)
          return yield* new CliError({ message: `no dataset records for run ${run} (no events under run.${run}.dataset.*)` })
        if (round !== undefined && !dataset.rounds.includes(round)) {
          return yield* new CliError({ message: `run ${run} has no dataset round ${round} (rounds: ${list(dataset.rounds)})` })
        }
        const included = round !== undefined ? [round] : dataset.rounds
        const selected = selectRecords(dataset.records, format, round)
        for (const warning of sealMismatches(dataset, included, format)) console.error(`warning: ${warning}`)

        const shown = (args.flags.images as "plain" | "marked" | undefined) ?? "plain"
        const { images, layout } = yield* writeSelected(
          selected.map((r) => ({ ...r, data: withImages(r.data, shown) })),
          format,
          out,
          trainer
        )

        const unsealed = included.filter((r) => !dataset.seals.has(r))
        const sealed = unsealed.length === 0
        console.error(
          `dataset export: ${selected.length} ${format} records from round${included.length === 1 ? "" : "s"} ${list(included)} of run ${run}, ` +
            `${images} images${out ? ` → ${out}` : ""}${layout}; ${sealed ? "sealed" : `round${unsealed.length === 1 ? "" : "s"} ${list(unsealed)} not sealed yet (more records may come)`}`
        )
        if (args.flags.json === true) {
          const summary = { run, format, rounds: included, records: selected.length, images, out: out ?? null, sealed }
          console.log(JSON.stringify(trainer === undefined ? summary : { ...summary, for: trainer }))
        }
      })
      yield* Effect.provide(program, opened.layer)
    })
}

export const datasetFollow: Command<Failure> = {
  name: "dataset follow",
  ownSignals: true,
  summary: "append dataset records as they are emitted, through a durable NATS consumer (exactly once in the file)",
  flags: {
    consumer: { kind: "string", description: "durable consumer name: a restart with the same name resumes where it left off (required)" },
    format: { kind: "string", description: "only records of this format (default: every format)", choices: FORMATS },
    run: { kind: "string", description: "only this run's records (default: every run's)" },
    out: {
      kind: "string",
      description: "JSONL file to append to, fsynced before each ack; images go to images/ beside it (default: stdout, images as hashes)"
    },
    "ack-wait": {
      kind: "number",
      description: "seconds before an unacknowledged delivery is redelivered, e.g. after a crash (default 30)"
    },
    ...commonConfigFlags
  },
  run: (args) =>
    Effect.gen(function* () {
      const consumer = yield* required(args, "consumer", "dataset follow")
      if (!isToken(consumer))
        return yield* new UsageError({ message: `--consumer ${JSON.stringify(consumer)} may only hold letters, digits, '-' and '_'` })
      const run = typeof args.flags.run === "string" ? args.flags.run : undefined
      if (run !== undefined) yield* checkRun(run)
      const ackWait = (args.flags["ack-wait"] as number | undefined) ?? 30
      if (!Number.isInteger(ackWait) || ackWait < 1)
        return yield* new UsageError({ message: `--ack-wait must be a whole number of seconds ≥ 1, got ${ackWait}` })
      const opened = yield* openStore(args)
      if (opened.choice.kind !== "nats") {
        return yield* new CliError({
          message: `dataset follow needs the NATS store: it reads through a durable JetStream consumer (store chosen: embedded, ${opened.choice.reason}; start nats-server -js or pass --store nats / NATS_URL)`
        })
      }
      yield* Effect.provide(
        followDataset({
          url: opened.choice.url,
          credentials: opened.credentials,
          consumer,
          format: args.flags.format as DatasetFormat | undefined,
          run,
          out: typeof args.flags.out === "string" ? resolve(args.flags.out) : undefined,
          ackWaitSeconds: ackWait
        }),
        opened.layer
      )
    })
}
