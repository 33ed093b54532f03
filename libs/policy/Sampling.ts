/**
 * The embedded policies' one sampler: softmax over scores with a single draw. The
 * exploration and retrieval policies both choose with it, so a change to how a draw maps
 * to a choice is made once — and a recorded draw keeps choosing what it chose.
 *
 * @example
 * softmaxDraw(candidates, (c) => c.score, 0.6, prng(seed)) // one rng.float(), a candidate
 */
import type { Draws } from "./PolicyView.ts"

/**
 * The item drawn with probability ∝ exp((score − best) / temperature), from one draw; the
 * last item when rounding leaves the draw past every weight. `items` must not be empty.
 */
export const softmaxDraw = <A>(items: ReadonlyArray<A>, scoreOf: (a: A) => number, temperature: number, rng: Draws): A => {
  const max = Math.max(...items.map(scoreOf))
  const weights = items.map((c) => Math.exp((scoreOf(c) - max) / temperature))
  let r = rng.float() * weights.reduce((a, b) => a + b, 0)
  for (let i = 0; i < items.length; i++) {
    r -= weights[i]!
    if (r < 0) return items[i]!
  }
  return items[items.length - 1]!
}
