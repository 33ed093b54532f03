/**
 * What the sandbox says about one label function on one trajectory (DESIGN §5).
 *
 * `ok` and `error` are verdicts: the same LF, trajectory and sandbox options give the same
 * one on any machine, in any pool, after any history. `infra-error` is not a verdict — the
 * machine failed to decide (wall-clock deadline, process memory cap, a crashed worker) —
 * and callers record it as such and may ask again.
 */
import type { LfTrajectory } from "@core/domain"

export type Verdict =
  | { readonly kind: "ok"; readonly satisfiedAt: number }
  /** Deterministic; `reason` starts with `budget:`, `throw:`, `result:`, `memory:` or `syntax:`. */
  | { readonly kind: "error"; readonly reason: string }
  /** Not a verdict: `reason` starts with `deadline:`, `memory cap:`, `crash:` or `sandbox:`. */
  | { readonly kind: "infra-error"; readonly reason: string }

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
