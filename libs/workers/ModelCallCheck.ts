/**
 * Which of a worker's model calls the driver may log. A result carries the ModelCalled
 * events its episode's policy made, and the driver appends them to the log before the
 * record — so each must be a call the driver's own replay of the record made, once, on this
 * run's model stream for its cause. Anything else is refused whole, and the episode is an
 * infra-error that says why: a worker never chooses what the log holds.
 *
 * @example
 * const r = callsToLog(runId, calls, consumed) // { ok: true, calls } or { ok: false, reason }
 */
import type { CoreEvent } from "@core/events"
import { modelCallStream } from "@core/models"

type ModelCalled = Extract<CoreEvent, { type: "ModelCalled" }>

/** The key a replay asks a recorded call by. */
export const callKey = (causationId: string | null, callIndex: number): string => `${causationId ?? ""}#${callIndex}`

export const callsToLog = (
  runId: string,
  calls: ReadonlyArray<ModelCalled>,
  consumed: ReadonlySet<string>
): { readonly ok: true; readonly calls: ReadonlyArray<ModelCalled> } | { readonly ok: false; readonly reason: string } => {
  const seen = new Set<string>()
  for (const c of calls) {
    const key = callKey(c.causationId, c.data.callIndex)
    if (c.runId !== runId) return { ok: false, reason: `a model call of another run (${String(c.runId).slice(0, 40)})` }
    if (c.causationId === null || c.stream !== modelCallStream(runId, c.causationId))
      return { ok: false, reason: `a model call addressed to another stream (${c.stream.slice(0, 80)})` }
    if (seen.has(key)) return { ok: false, reason: `model call ${c.data.callIndex} of its cause twice` }
    if (!consumed.has(key)) return { ok: false, reason: `a model call its episode did not make (call ${c.data.callIndex})` }
    seen.add(key)
  }
  return { ok: true, calls }
}
