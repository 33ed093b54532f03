/**
 * Validating a candidate label function (docs/method.md; the reference implementation's
 * only check is "true on its own demo"). An LF is accepted only if it holds on its source demo
 * at or after its key step, does not hold on the demo's prefix before that step (an LF
 * that is already true before the step happened does not witness the step), and does not
 * hold on any known failing trajectory. Pure: the sandbox's verdicts come in, a decision
 * goes out.
 *
 * @example
 * judgeCandidate({ keyStepIndex: 3, demo: { kind: "ok", satisfiedAt: 3 }, prefix: { kind: "ok", satisfiedAt: -1 }, failures: [] })
 * // { accepted: true, onDemoAtKeyStep: 3, onPrefix: false, onFailures: [] }
 */

/** What the sandbox says about one evaluation (the same shape as @core/sandbox's Verdict). */
export type LfVerdict =
  | { readonly kind: "ok"; readonly satisfiedAt: number }
  | { readonly kind: "error"; readonly reason: string }
  | { readonly kind: "infra-error"; readonly reason: string }

export interface CandidateResults {
  readonly keyStepIndex: number
  readonly demo: LfVerdict
  /** On the demo cut before its key step. */
  readonly prefix: LfVerdict
  readonly failures: ReadonlyArray<{ readonly trajectoryId: string; readonly verdict: LfVerdict }>
}

export type Judgement =
  | {
      readonly accepted: true
      readonly onDemoAtKeyStep: number
      readonly onPrefix: false
      readonly onFailures: ReadonlyArray<{ readonly trajectoryId: string; readonly result: number }>
    }
  | { readonly accepted: false; readonly reason: string; readonly infra: boolean }

const describe = (v: LfVerdict): string => (v.kind === "ok" ? `held at step ${v.satisfiedAt}` : `${v.kind}: ${v.reason}`)

/** The SatisfiedAt an evidence list records: errors count as not holding. */
export const satisfiedAt = (v: LfVerdict): number => (v.kind === "ok" ? v.satisfiedAt : -1)

export const judgeCandidate = (r: CandidateResults): Judgement => {
  const all = [r.demo, r.prefix, ...r.failures.map((f) => f.verdict)]
  const infra = all.find((v) => v.kind === "infra-error")
  if (infra !== undefined) return { accepted: false, reason: `could not be evaluated (${describe(infra)})`, infra: true }
  if (r.demo.kind === "error") return { accepted: false, reason: `on its demo: ${describe(r.demo)}`, infra: false }
  if (r.demo.kind === "ok" && r.demo.satisfiedAt < 0) return { accepted: false, reason: "false on its source demo", infra: false }
  const on = satisfiedAt(r.demo)
  if (on < r.keyStepIndex) {
    return { accepted: false, reason: `held at step ${on}, before its key step ${r.keyStepIndex}`, infra: false }
  }
  if (r.prefix.kind === "error") return { accepted: false, reason: `on the prefix: ${describe(r.prefix)}`, infra: false }
  if (satisfiedAt(r.prefix) >= 0) {
    return { accepted: false, reason: `true on the prefix before its key step (at step ${satisfiedAt(r.prefix)})`, infra: false }
  }
  const passed = r.failures.find((f) => satisfiedAt(f.verdict) >= 0)
  if (passed !== undefined) {
    return {
      accepted: false,
      reason: `true on the failing trajectory ${passed.trajectoryId} (at step ${satisfiedAt(passed.verdict)})`,
      infra: false
    }
  }
  return {
    accepted: true,
    onDemoAtKeyStep: on,
    onPrefix: false,
    onFailures: r.failures.map((f) => ({ trajectoryId: f.trajectoryId, result: satisfiedAt(f.verdict) }))
  }
}

/**
 * A task-level verdict (the demo's path): every LF holds, in key-step order, at strictly
 * increasing steps. `at(i, from)` gives LF i's first satisfying step at or after `from`
 * (-1 when none) — so a later occurrence counts when an early one is out of order.
 */
export const holdsInOrder = (count: number, at: (lf: number, from: number) => number): { pass: boolean; steps: ReadonlyArray<number> } => {
  const steps: Array<number> = []
  let from = 0
  for (let i = 0; i < count; i++) {
    const found = at(i, from)
    if (found < 0) return { pass: false, steps }
    steps.push(found)
    from = found + 1
  }
  return { pass: true, steps }
}
