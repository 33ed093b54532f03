/**
 * Seeded randomness for site content. Content must be a pure function of the episode seed,
 * so sites never touch Math.random or the clock: they draw from a stream made here.
 */

/** A 32-bit hash of a seed and a label, so each part of a site gets its own stream. */
export const hashSeed = (seed: number, label: string): number => {
  let h = (seed ^ 0x9e3779b9) >>> 0
  for (let i = 0; i < label.length; i++) {
    h = Math.imul(h ^ label.charCodeAt(i), 0x85ebca6b) >>> 0
    h = (h ^ (h >>> 13)) >>> 0
  }
  return Math.imul(h ^ (h >>> 16), 0xc2b2ae35) >>> 0
}

export interface Rng {
  /** Uniform in [0, 1). */
  readonly next: () => number
  /** Integer in [lo, hi], both inclusive. */
  readonly int: (lo: number, hi: number) => number
  readonly pick: <T>(items: ReadonlyArray<T>) => T
  readonly chance: (p: number) => boolean
  /** A shuffled copy (Fisher–Yates). */
  readonly shuffle: <T>(items: ReadonlyArray<T>) => Array<T>
}

/** mulberry32: tiny, fast, and good enough for content; not for anything secret. */
export const rng = (seed: number, label = ""): Rng => {
  let a = hashSeed(seed, label)
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1))
  return {
    next,
    int,
    pick: (items) => {
      if (items.length === 0) throw new Error("pick from an empty list")
      return items[int(0, items.length - 1)]!
    },
    chance: (p) => next() < p,
    shuffle: (items) => {
      const out = [...items]
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(0, i)
        const tmp = out[i]!
        out[i] = out[j]!
        out[j] = tmp
      }
      return out
    }
  }
}
