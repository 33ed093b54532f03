/**
 * The small command framework behind `bun core`: flag parsing with one-line errors, and a
 * runner that turns any failure into `error: …` on stderr and a non-zero exit, as the table
 * of Failures.ts words it — never a stack trace for bad input (set CORE_DEBUG=1 to see one
 * for a defect).
 */
import { Cause, Effect, Exit, Fiber } from "effect"
import { joinLines, messageOf } from "@core/events"
import { renderFailure, UsageError } from "./Failures.ts"

export { CliError, UsageError } from "./Failures.ts"
import type { Failure } from "./Failures.ts"
export type { Failure }

/** A `list` flag may be given again and again; its values are `ParsedArgs.lists[name]`, in order. */
export type FlagKind = "boolean" | "string" | "number" | "list"

export interface FlagSpec {
  readonly kind: FlagKind
  readonly description: string
  /** Restrict a string flag to these values. */
  readonly choices?: ReadonlyArray<string>
  /** A string or list value's problem, or undefined when it is good; the usage error is `--<flag> <problem>`. */
  readonly check?: (value: string) => string | undefined
}

/**
 * A command whose `run` fails with `E`. `Command<Failure>` makes the compiler check that each
 * failure it can end with has a line in the table of Failures.ts (every command of
 * commands/mod.ts is one); plain `Command` is what the runner and the help take, any command.
 */
export interface Command<E = unknown> {
  /** Words after `bun core`, e.g. "config show". */
  readonly name: string
  readonly summary: string
  readonly flags: Record<string, FlagSpec>
  /** Names of positional arguments, for help; `run` checks them. */
  readonly positionals?: ReadonlyArray<string>
  readonly run: (args: ParsedArgs) => Effect.Effect<void, E>
  /** The command handles SIGINT and SIGTERM itself (a follower: stopping is its normal end). */
  readonly ownSignals?: boolean
}

export interface ParsedArgs {
  readonly flags: Readonly<Record<string, string | number | boolean | undefined>>
  readonly positionals: ReadonlyArray<string>
  /** Flags as given on the command line (for config precedence). */
  readonly given: ReadonlySet<string>
  /** The values of each `list` flag given; absent when none was. */
  readonly lists?: Readonly<Record<string, ReadonlyArray<string>>>
}

export const parseArgs = (command: Command, argv: ReadonlyArray<string>): Effect.Effect<ParsedArgs, UsageError> =>
  Effect.suspend(() => {
    const flags: Record<string, string | number | boolean | undefined> = {}
    const positionals: Array<string> = []
    const given = new Set<string>()
    const lists: Record<string, Array<string>> = {}
    const help = `see 'bun core ${command.name} --help'`
    for (let i = 0; i < argv.length; i++) {
      const arg = argv[i]!
      if (!arg.startsWith("--")) {
        positionals.push(arg)
        continue
      }
      const eq = arg.indexOf("=")
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq)
      const spec = command.flags[name]
      if (!spec) return Effect.fail(new UsageError({ message: `unknown flag --${name} for '${command.name}'; ${help}` }))
      given.add(name)
      if (spec.kind === "boolean") {
        if (eq !== -1) {
          const v = arg.slice(eq + 1)
          if (v !== "true" && v !== "false")
            return Effect.fail(new UsageError({ message: `--${name} takes no value or true/false, got '${v}'` }))
          flags[name] = v === "true"
        } else flags[name] = true
        continue
      }
      const raw = eq !== -1 ? arg.slice(eq + 1) : argv[++i]
      if (raw === undefined) return Effect.fail(new UsageError({ message: `--${name} needs a value; ${help}` }))
      if (spec.choices && !spec.choices.includes(raw)) {
        return Effect.fail(new UsageError({ message: `--${name} must be one of ${spec.choices.join(", ")}, got '${raw}'` }))
      }
      const problem = spec.check?.(raw)
      if (problem !== undefined) return Effect.fail(new UsageError({ message: `--${name} ${problem}` }))
      if (spec.kind === "list") (lists[name] ??= []).push(raw)
      else if (spec.kind === "number") {
        const n = Number(raw)
        if (raw.trim() === "" || !Number.isFinite(n))
          return Effect.fail(new UsageError({ message: `--${name} needs a number, got '${raw}'` }))
        flags[name] = n
      } else flags[name] = raw
    }
    return Effect.succeed({ flags, positionals, given, lists })
  })

/** A whole-number flag of at least `min`, or the default; a one-line usage error otherwise. */
export const positiveInt = (args: ParsedArgs, name: string, fallback: number, min = 1): Effect.Effect<number, UsageError> => {
  const v = args.flags[name]
  if (v === undefined) return Effect.succeed(fallback)
  return typeof v === "number" && Number.isInteger(v) && v >= min
    ? Effect.succeed(v)
    : Effect.fail(new UsageError({ message: `--${name} must be a whole number ≥ ${min}, got ${String(v)}` }))
}

export const helpText = (command: Command): string => {
  const lines = [`bun core ${command.name}${(command.positionals ?? []).map((p) => ` <${p}>`).join("")} — ${command.summary}`]
  const names = Object.keys(command.flags)
  if (names.length > 0) {
    lines.push("", "flags:")
    for (const n of names) {
      const f = command.flags[n]!
      const v = f.kind === "boolean" ? "" : f.choices ? ` <${f.choices.join("|")}>` : f.kind === "list" ? " <value>…" : ` <${f.kind}>`
      // A flag longer than the column still keeps two spaces before its description.
      lines.push(`${`  --${n}${v}`.padEnd(32)}  ${f.description}`)
    }
  }
  return lines.join("\n")
}

/** One line for any failure value: our tagged errors carry a message; anything else is described. */
export const oneLine = (error: unknown): string => joinLines(messageOf(error))

/**
 * The first SIGINT or SIGTERM interrupts the command, so its finalizers run: browsers,
 * drivers and servers are closed and a store's open commit completes or never happened (an
 * interrupted run resumes with `run --resume`). A second signal exits at once.
 */
const stopOnSignals = (fiber: Fiber.Fiber<unknown, unknown>): void => {
  let received = 0
  const on = (signal: NodeJS.Signals) => {
    received++
    if (received > 1) process.exit(130)
    console.error(`interrupted (${signal}): stopping — send it again to stop at once`)
    Effect.runFork(Fiber.interrupt(fiber))
  }
  process.on("SIGINT", on)
  process.on("SIGTERM", on)
}

/**
 * Runs a command to completion and exits: 0 on success, 130 when interrupted, 70 on a defect,
 * and for a failure the line and exit code Failures.ts gives it (2 for usage, 1 otherwise).
 */
export const runCommand = async (command: Command, argv: ReadonlyArray<string>): Promise<never> => {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(helpText(command))
    process.exit(0)
  }
  // runFork runs a program's first steps at once: yielding first means the signal handlers
  // below exist before a command can start anything a signal would have to stop.
  const fiber = Effect.runFork(Effect.andThen(Effect.yieldNow, Effect.flatMap(parseArgs(command, argv), command.run)))
  if (command.ownSignals !== true) stopOnSignals(fiber)
  const exit = await Effect.runPromise(Fiber.await(fiber))
  if (Exit.isSuccess(exit)) process.exit(0)
  const cause = exit.cause
  if (Cause.hasInterruptsOnly(cause)) process.exit(130)
  const failure = Cause.findErrorOption(cause)
  if (failure._tag === "Some") {
    const { line, exit } = renderFailure(failure.value)
    console.error(`error: ${line}`)
    process.exit(exit)
  }
  const defect = Cause.squash(cause)
  console.error(`error: internal: ${oneLine(defect)}${process.env.CORE_DEBUG ? "" : " (CORE_DEBUG=1 shows the stack)"}`)
  if (process.env.CORE_DEBUG) console.error(defect instanceof Error ? defect.stack : defect)
  process.exit(70)
}

/** Resolves at the first Ctrl-C or SIGTERM: how the commands that run until stopped (ui, worker) end cleanly. */
export const untilSignal = (): Promise<void> =>
  new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve())
    process.once("SIGTERM", () => resolve())
  })
