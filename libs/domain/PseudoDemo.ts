/**
 * Pseudo-demos (docs/method.md, "Extrapolation"): the steps of a parent trajectory that
 * demonstrate an extrapolated task, as a demo would — without the walk around them.
 *
 * The steps kept are the task's key steps (what its template's key steps matched) and the
 * steps that lead from one to the next. A *loop* — steps that leave a page and come back to
 * it (or act without leaving it) with no key step among them — is dropped: the following
 * step starts where the loop began. What remains is a chain: each kept step starts on the
 * page the kept step before it left. The pseudo-demo ends with the closing claim: the
 * parent's own when it declared completion right after, else an added `status complete`,
 * taken on the page the last kept step left.
 *
 * So no kept step can be removed without breaking the chain (it is the only way to a later
 * key step's page) or losing a key step: the property test in `test/PseudoDemo.test.ts`
 * checks exactly that, and that the task's own label functions hold on the result.
 *
 * @example
 * prunePseudoDemo(steps, { keySteps: [11], end: 12 }) // { stepIndices: [10, 11], addsClosing: true }
 */
import type { ExtrapolationStep } from "./Extrapolation.ts"

export interface PseudoDemoPlan {
  /** The parent trajectory's steps the pseudo-demo keeps, by index, ascending. */
  readonly stepIndices: ReadonlyArray<number>
  /** The parent did not close right after: the pseudo-demo ends with an added `status complete`. */
  readonly addsClosing: boolean
}

const closes = (s: ExtrapolationStep | undefined): boolean => s !== undefined && (s.action.kind === "status" || s.action.kind === "answer")

/**
 * The pseudo-demo of the first `end` steps of `steps`, keeping `keySteps` (indices below
 * `end`). A closing step at `end - 1` is always kept.
 */
export const prunePseudoDemo = (
  steps: ReadonlyArray<ExtrapolationStep>,
  input: { readonly keySteps: ReadonlyArray<number>; readonly end: number }
): PseudoDemoPlan => {
  const end = Math.min(input.end, steps.length)
  const closing = closes(steps[end - 1]) ? end - 1 : -1
  const key = new Set(input.keySteps.filter((i) => i >= 0 && i < end))
  if (closing >= 0) key.add(closing)
  const kept: Array<number> = []
  let i = 0
  while (i < end) {
    if (key.has(i)) {
      kept.push(i++)
      continue
    }
    // The latest step before the next key step that comes back to where step i started.
    const nextKey = [...key].filter((k) => k > i).sort((a, b) => a - b)[0] ?? end
    let back = -1
    for (let j = nextKey - 1; j >= i; j--) {
      if (steps[j]!.urlAfter === steps[i]!.urlBefore) {
        back = j
        break
      }
    }
    if (back >= 0) i = back + 1
    else kept.push(i++)
  }
  // Steps after the last key step lead nowhere the task needs (the parent walked on).
  const lastKey = Math.max(-1, ...key)
  const stepIndices = kept.filter((k) => k <= lastKey || key.size === 0)
  return { stepIndices, addsClosing: !closes(steps[stepIndices.at(-1) ?? -1]) }
}

/** Each kept step starts on the page the kept step before it left (the first where the parent started it). */
export const isChain = (steps: ReadonlyArray<ExtrapolationStep>, stepIndices: ReadonlyArray<number>): boolean =>
  stepIndices.every((k, n) => n === 0 || steps[stepIndices[n - 1]!]!.urlAfter === steps[k]!.urlBefore)
