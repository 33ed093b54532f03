/**
 * Seeded randomness: every random draw a decider makes comes from a PRNG seeded
 * with `H(runSeed, round, taskId, sample, purpose)`, so replay draws the same numbers
 * without recording them. sfc32 — small, fast, and good enough for sampling decisions —
 * seeded from the first 128 bits of the sha256 of the canonical key.
 *
 * @example
 * const rng = prng(seedOf({ runSeed: "0", round: 1, taskId: "t1", sample: 0, purpose: "explore" }))
 * rng.int(0, 10) // the same number on every machine, every time
 */
import { Context, Layer } from "effect"
import { digest } from "@core/events"

export interface DrawKey {
  readonly round: number
  readonly taskId: string
  readonly sample: number
  /** What the draws are for, so two uses in one sample never share a sequence. */
  readonly purpose: string
}

/** The seed of one sequence of draws: sha256 hex of the canonical key. */
export const seedOf = (key: DrawKey & { readonly runSeed: string }): string =>
  digest([key.runSeed, key.round, key.taskId, key.sample, key.purpose])

export interface Prng {
  /** A uniform 32-bit unsigned integer. */
  next(): number
  /** A uniform float in [0, 1). */
  float(): number
  /** A uniform integer in [min, max). */
  int(min: number, max: number): number
}

/** sfc32 seeded from a sha256 hex string. */
export const prng = (seedHex: string): Prng => {
  if (!/^[0-9a-f]{32,}$/.test(seedHex)) throw new TypeError("prng seed must be at least 32 hex characters")
  let a = parseInt(seedHex.slice(0, 8), 16) >>> 0
  let b = parseInt(seedHex.slice(8, 16), 16) >>> 0
  let c = parseInt(seedHex.slice(16, 24), 16) >>> 0
  let d = parseInt(seedHex.slice(24, 32), 16) >>> 0
  const next = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0
    d = (d + 1) >>> 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) >>> 0
    c = ((c << 21) | (c >>> 11)) >>> 0
    c = (c + t) >>> 0
    return t
  }
  // The first outputs of sfc32 still echo the seed words; the reference discards 12.
  for (let i = 0; i < 12; i++) next()
  const float = () => next() / 4294967296
  return {
    next,
    float,
    int: (min, max) => {
      if (!Number.isInteger(min) || !Number.isInteger(max) || max <= min) throw new RangeError(`empty range [${min}, ${max})`)
      return min + Math.floor(float() * (max - min))
    }
  }
}

/** The run's randomness: live and replay alike, since it is a pure function of the run seed. */
export class Randomness extends Context.Service<
  Randomness,
  {
    readonly runSeed: string
    draws(key: DrawKey): Prng
  }
>()("@core/engine/Randomness") {
  static readonly layer = (runSeed: string) =>
    Layer.succeed(Randomness, Randomness.of({ runSeed, draws: (key) => prng(seedOf({ runSeed, ...key })) }))
}
