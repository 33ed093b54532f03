/**
 * `bun core train`: the learned policy trained on CORE's dataset stream (@core/trainer), once
 * from a run's sealed round, or continuously as a durable consumer of the dataset events.
 * What it writes and how a follow trainer resumes: docs/datasets.md, "A trainer on the stream".
 */
import { Effect } from "effect"
import { isToken } from "@core/engine"
import { openStore } from "@core/run"
import { followTrainer, trainRun } from "@core/trainer"
import type { TrainRunSummary } from "@core/trainer"
import { join, resolve } from "node:path"
import type { Command, ParsedArgs } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { CliError, UsageError } from "../Cli.ts"
import { commonConfigFlags } from "../ConfigFlags.ts"

const token = (args: ParsedArgs, name: string): Effect.Effect<string | undefined, UsageError> => {
  const v = args.flags[name]
  if (v === undefined) return Effect.succeed(undefined)
  return typeof v === "string" && isToken(v)
    ? Effect.succeed(v)
    : Effect.fail(new UsageError({ message: `--${name} ${JSON.stringify(v)} may only hold letters, digits, '-' and '_'` }))
}

/** The flags of the other mode, which this one refuses rather than ignores. */
const refuse = (args: ParsedArgs, names: ReadonlyArray<string>, mode: string) => {
  const given = names.find((n) => args.given.has(n))
  return given === undefined ? Effect.void : Effect.fail(new UsageError({ message: `--${given} does not go with ${mode}` }))
}

const summaryLines = (s: TrainRunSummary): Array<string> => [
  `train: run ${s.run} through round ${s.round}: ${s.records} records, ${s.examples} examples, seed ${s.seed.slice(0, 12)}…`,
  s.heldApart.accuracy === null
    ? "train: nothing held apart (the examples come from fewer than two trajectories)"
    : `train: next-action accuracy ${s.heldApart.accuracy.toFixed(3)} on ${s.heldApart.examples} held-apart examples of ${s.heldApart.trajectories} ${s.heldApart.trajectories === 1 ? "trajectory" : "trajectories"} ` +
      `(whole trajectories in sha256 order of their id, within a tenth of the examples; measured on a model trained without them)` +
      `${s.accuracy === null ? "" : `, ${s.accuracy.toFixed(3)} on the examples it trained on`}`,
  `train: weights ${s.weights} (${s.bytes} bytes) in the blob store; PolicyTrained on ${s.stream}${s.appended ? "" : " (already there: not appended again)"}`
]

const trainOnce = (args: ParsedArgs) =>
  Effect.gen(function* () {
    yield* refuse(args, ["consumer", "state", "seed", "ack-wait"], "--run (they are for --follow)")
    const run = yield* token(args, "run")
    if (run === undefined) return yield* new UsageError({ message: "--run or --follow is required; see 'bun core train --help'" })
    const round = args.flags.round as number | undefined
    if (round !== undefined && (!Number.isInteger(round) || round < 0))
      return yield* new UsageError({ message: `--round must be a round number ≥ 0, got ${round}` })
    const opened = yield* openStore(args)
    const summary = yield* Effect.provide(trainRun({ run, round }), opened.layer)
    for (const line of summaryLines(summary)) console.error(line)
    if (args.flags.json === true) console.log(JSON.stringify(summary))
  })

const trainFollowing = (args: ParsedArgs) =>
  Effect.gen(function* () {
    yield* refuse(args, ["round", "json"], "--follow (it trains until stopped)")
    const consumer = yield* token(args, "consumer")
    if (consumer === undefined) return yield* new UsageError({ message: "--follow needs --consumer NAME; see 'bun core train --help'" })
    const run = yield* token(args, "run")
    const ackWait = (args.flags["ack-wait"] as number | undefined) ?? 30
    if (!Number.isInteger(ackWait) || ackWait < 1)
      return yield* new UsageError({ message: `--ack-wait must be a whole number of seconds ≥ 1, got ${ackWait}` })
    const seed = args.flags.seed
    if (seed === "") return yield* new UsageError({ message: "--seed must not be empty" })
    const opened = yield* openStore(args)
    if (opened.choice.kind !== "nats") {
      return yield* new CliError({
        message: `train --follow needs the NATS store: it reads through a durable JetStream consumer (store chosen: embedded, ${opened.choice.reason}; start nats-server -js or pass --store nats / NATS_URL)`
      })
    }
    const state =
      typeof args.flags.state === "string" ? resolve(args.flags.state) : resolve(opened.config.values.dataDir, "trainer", consumer)
    yield* Effect.provide(
      followTrainer({
        url: opened.choice.url,
        credentials: opened.credentials,
        consumer,
        run,
        dir: state,
        seed: typeof seed === "string" ? seed : undefined,
        ackWaitSeconds: ackWait
      }),
      opened.layer
    )
  })

export const train: Command<Failure> = {
  name: "train",
  ownSignals: true,
  summary: "train the learned policy on a run's sealed dataset, or follow the dataset events and train a version as records arrive",
  flags: {
    run: { kind: "string", description: "the run whose dataset to train on (required without --follow; with it, only this run's records)" },
    round: { kind: "number", description: "train on rounds ≤ this sealed round (default: the run's last sealed round)" },
    json: { kind: "boolean", description: "also print the summary as one JSON object on stdout" },
    follow: {
      kind: "boolean",
      description: "consume the dataset events and train a new version each time new records arrive, until stopped"
    },
    consumer: { kind: "string", description: "with --follow: the durable consumer's name; a restart with it resumes (required)" },
    state: {
      kind: "string",
      description: `with --follow: the trainer's state folder (default ${join("<dataDir>", "trainer", "<consumer>")})`
    },
    seed: {
      kind: "string",
      description: "with --follow: the seed every version trains with (default: the state folder's, or the consumer name)"
    },
    "ack-wait": {
      kind: "number",
      description: "with --follow: seconds before an unacknowledged delivery is redelivered, e.g. after a crash (default 30)"
    },
    ...commonConfigFlags
  },
  run: (args) => (args.flags.follow === true ? trainFollowing(args) : trainOnce(args))
}
