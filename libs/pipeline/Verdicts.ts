/**
 * Each trajectory's verdict as a run's data counts it: verification's `TrajectoryVerified`,
 * turned into a pass where a `TrajectoryPromoted` (data rules 6) says a path its round added
 * accepts it. Metrics, agreement with an app's `evaluate` and the read models all count
 * through this, so a promoted trajectory is a pass everywhere the datasets treat it as one.
 *
 * @example
 * const verdicts = finalVerdicts(events) // in TrajectoryVerified order; `promoted` marks the passes expansion gave
 */
import type { CoreEvent, DataOf, TrajectoryVerified } from "@core/events"

export type FinalVerdict = DataOf<typeof TrajectoryVerified> & { readonly promoted: boolean }

export const finalVerdicts = (events: ReadonlyArray<CoreEvent>): ReadonlyArray<FinalVerdict> => {
  const promoted = new Map<string, Extract<CoreEvent, { type: "TrajectoryPromoted" }>["data"]>()
  for (const e of events) if (e.type === "TrajectoryPromoted") promoted.set(e.data.trajectoryId, e.data)
  return events.flatMap((e): ReadonlyArray<FinalVerdict> => {
    if (e.type !== "TrajectoryVerified") return []
    const p = promoted.get(e.data.trajectoryId)
    if (p === undefined || e.data.verdict !== "partial") return [{ ...e.data, promoted: false }]
    return [{ ...e.data, verdict: "pass" as const, path: p.path, matched: p.matched, promoted: true }]
  })
}
