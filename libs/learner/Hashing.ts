/**
 * Hashed features: each feature is a template, the candidate's kind and a value mixed into
 * an index of a fixed-size weight vector, so a state's features are integer arrays built
 * once and an epoch is only multiply-adds. Shared by the action ranker (Features.ts) and the
 * text ranker (TextChoice.ts), which score with the same weights.
 *
 * @example
 * const b = new RowBuilder(); b.kind = 1; b.add(fnv("role"), fnv("link")); const rows = b.take()
 */
/** Weight vector size: 2^18 keeps collisions rare for a few thousand live features. */
export const DIM = 1 << 18
const MASK = DIM - 1

/**
 * A state's candidates and their features, flat: candidate c's features are entries
 * `starts[c]` to `starts[c + 1]` of `index` and `value`.
 */
export interface FeatureRows {
  readonly starts: Int32Array
  readonly index: Int32Array
  readonly value: Float64Array
}

export const fnv = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h >>> 0
}
export const mix = (a: number, b: number): number => {
  let h = Math.imul(a ^ (b + 0x9e3779b9 + (a << 6) + (a >>> 2)), 0x85ebca6b)
  h ^= h >>> 13
  return Math.imul(h, 0xc2b2ae35) >>> 0
}

/** Appends a state's features to scratch buffers reused across states, copied out once per state. */
export class RowBuilder {
  private index = new Int32Array(1 << 14)
  private value = new Float64Array(1 << 14)
  length = 0
  kind = 0
  add(template: number, x: number, v = 1): void {
    if (v === 0) return
    if (this.length === this.index.length) {
      const index = new Int32Array(this.length * 2)
      const value = new Float64Array(this.length * 2)
      index.set(this.index)
      value.set(this.value)
      this.index = index
      this.value = value
    }
    this.index[this.length] = mix(mix(template, this.kind), x) & MASK
    this.value[this.length++] = v
  }
  take(): { readonly index: Int32Array; readonly value: Float64Array } {
    const out = { index: this.index.slice(0, this.length), value: this.value.slice(0, this.length) }
    this.length = 0
    return out
  }
}

/** Candidate c's score under the weights. */
export const scoreOf = (weights: Float64Array, f: FeatureRows, c: number): number => {
  let s = 0
  for (let i = f.starts[c]!; i < f.starts[c + 1]!; i++) s += weights[f.index[i]!]! * f.value[i]!
  return s
}

/** Every candidate's score. */
export const scoresOf = (weights: Float64Array, f: FeatureRows): Float64Array => {
  const out = new Float64Array(f.starts.length - 1)
  for (let c = 0; c < out.length; c++) out[c] = scoreOf(weights, f, c)
  return out
}
