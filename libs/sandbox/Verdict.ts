/**
 * What the sandbox says about one label function on one trajectory (docs/sandbox.md).
 *
 * `ok` and `error` are verdicts: the same LF, trajectory and sandbox options give the same
 * one on any machine, in any pool, after any history. `infra-error` is not a verdict — the
 * machine failed to decide (wall-clock deadline, process memory cap, a crashed worker) —
 * and callers record it as such and may ask again.
 */
import type { LfTrajectory, LfVerdict } from "@core/domain"

/**
 * The domain's verdict type (validation judges these). Here, an `error` reason starts with
 * `budget:`, `throw:`, `result:`, `memory:` or `syntax:`; an `infra-error` reason with
 * `deadline:`, `memory cap:`, `crash:` or `sandbox:`.
 */
export type Verdict = LfVerdict

export interface EvalRequest {
  /** A script defining `function labelFunction(t)`; no import / export. */
  readonly code: string
  /**
   * `key` is the caller's digest of `value`: workers cache the loaded trajectory under it,
   * so two different trajectories must never share a key.
   */
  readonly trajectory: { readonly key: string; readonly value: LfTrajectory }
  /** The LF sees only `steps[0..prefix)` (clamped like `prefixOf`); absent = every step. */
  readonly prefix?: number
}

export const ok = (satisfiedAt: number): Verdict => ({ kind: "ok", satisfiedAt })
export const error = (reason: string): Verdict => ({ kind: "error", reason })
export const infraError = (reason: string): Verdict => ({ kind: "infra-error", reason })
