/**
 * Timing helpers shared by the `bun core bench …` commands (every figure is a ratio against
 * the raw underlying tool, measured in the same run, since absolute rates swing with load).
 *
 * Both sides of a comparison run in interleaved rounds (ours, raw, raw, ours, …) so that
 * drift during the run — JIT warm-up, GC, the server's own caches and file growth — falls
 * on both sides alike instead of on whichever side happened to go first.
 */
import { Effect } from "effect"

/** How long one side took over all its rounds, and how many operations it did. */
export interface Tally {
  readonly ops: number
  readonly ms: number
}

export const perSecond = (t: Tally): number => (t.ms > 0 ? Math.round((t.ops * 1000) / t.ms) : 0)

/**
 * ours ÷ raw from the *printed* rates, so that anyone checking a report against its own
 * numbers gets the same ratio.
 */
export const ratio = (ours: number | null, raw: number | null): number | null =>
  ours === null || raw === null || raw === 0 ? null : Math.round((ours / raw) * 1000) / 1000

/** Runs `effect` and returns its result with the wall time it took. */
export const timed = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<readonly [A, number], E, R> =>
  Effect.suspend(() => {
    const start = performance.now()
    return Effect.map(effect, (a) => [a, performance.now() - start] as const)
  })

/** One round of one side: does its share of the work and says how many operations that was. */
export type Round<E, R> = (round: number) => Effect.Effect<number, E, R>

/**
 * Runs `rounds` rounds of each side in ABBA order (ours first in even pairs, raw first in
 * odd ones) and sums each side's operations and time. `prepare` runs untimed before each
 * round, so inputs can be built per round instead of all held in memory at once.
 */
export const interleaved = <E1, R1, E2, R2>(
  rounds: number,
  ours: Round<E1, R1>,
  raw: Round<E2, R2>,
  prepare: (round: number) => void = () => undefined
) =>
  Effect.gen(function* () {
    const tally = { ours: { ops: 0, ms: 0 }, raw: { ops: 0, ms: 0 } }
    const side = (which: "ours" | "raw", round: number) =>
      Effect.map(timed<number, E1 | E2, R1 | R2>(which === "ours" ? ours(round) : raw(round)), ([ops, ms]) => {
        tally[which].ops += ops
        tally[which].ms += ms
      })
    for (let r = 0; r < rounds; r++) {
      prepare(r)
      const order = r % 2 === 0 ? (["ours", "raw"] as const) : (["raw", "ours"] as const)
      for (const which of order) yield* side(which, r)
    }
    return tally as { readonly ours: Tally; readonly raw: Tally }
  })

/** Splits `total` into `parts` near-equal whole shares (the first ones get the remainder). */
export const shares = (total: number, parts: number): Array<number> =>
  Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0))

/** Peak resident set size of this process so far, in MB (Linux reports maxRSS in KB). */
export const peakRssMb = (): number =>
  Math.round(Math.max(process.resourceUsage().maxRSS / 1024, process.memoryUsage().rss / (1024 * 1024)) * 10) / 10
