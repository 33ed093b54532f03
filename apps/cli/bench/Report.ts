/**
 * What every `bun core bench …` command shares: its count flag, a Ctrl-C that interrupts the
 * bench (so its finalizers still clean up), and the plain-text table it prints.
 *
 * @example
 * const events = yield* countFlag(args, "events", 10_000, 10)
 * console.log(textTable([["events/s", "ours"], ["append", num(r.append_per_s)]], [`Bun ${Bun.version}`]))
 */
import { Effect, Fiber } from "effect"
import { UsageError } from "../Cli.ts"
import type { ParsedArgs } from "../Cli.ts"

export const num = (n: number | null): string => (n === null ? "—" : n.toLocaleString("en-US"))

export const mark = (ok: boolean): string => (ok ? "✓" : "✗")

/** `--<name>`: a whole number of at least `min`, or `fallback` when absent; anything else is a usage error. */
export const countFlag = (args: ParsedArgs, name: string, fallback: number, min: number): Effect.Effect<number, UsageError> => {
  const raw = args.flags[name]
  const n = raw === undefined ? fallback : Number(raw)
  return Number.isInteger(n) && n >= min
    ? Effect.succeed(n)
    : Effect.fail(new UsageError({ message: `--${name} needs a whole number of at least ${min}, got ${raw}` }))
}

/**
 * Ctrl-C interrupts the bench instead of killing the process, so its finalizers still
 * delete the bench stream and the temp files.
 */
export const interruptOnSignal = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) => {
    const stop = () => void Effect.runFork(Fiber.interrupt(fiber))
    process.once("SIGINT", stop)
    process.once("SIGTERM", stop)
    return Effect.ensuring(
      self,
      Effect.sync(() => {
        process.off("SIGINT", stop)
        process.off("SIGTERM", stop)
      })
    )
  })

/** Rows under their header, the first column left-aligned and the rest right-aligned, then a blank line and the footer. */
export const textTable = (rows: ReadonlyArray<ReadonlyArray<string>>, footer: ReadonlyArray<string>): string => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd()
  return [...rows.map(line), "", ...footer].join("\n")
}
