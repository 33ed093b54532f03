/**
 * Matching re-derived decision events with the logged ones: pure, so it is tested without
 * a store. Events match by id (ids are hashes of run, cause, type and ordinal, so the same
 * decision gets the same id); a matched pair that differs is `changed`, with a field-level
 * diff; the rest are `missing` (logged, not re-derived) or `extra` (re-derived, not logged).
 * A decider that could not run because a recorded input disagreed (`input`) or that failed
 * (`failed`) is reported at the event it was handling.
 *
 * @example
 * const { divergences } = compareDecisions({ events, registry, rederived, failures })
 */
import { joinLines, messageOf } from "@core/events"
import type { CoreEvent } from "@core/events"
import type { DeciderRegistry } from "./Decider.ts"
import { comparable, diffValues, sameDecision } from "./Diff.ts"
import type { FieldDiff } from "./Diff.ts"
import { inputMismatchTags } from "./Services.ts"

export interface Rederived {
  /** Index in the log of the event whose handling produced it. */
  readonly causeIndex: number
  readonly decider: string
  readonly event: CoreEvent
}

export interface DeciderFailure {
  readonly causeIndex: number
  readonly decider: string
  readonly error: unknown
}

export interface Divergence {
  readonly kind: "changed" | "missing" | "extra" | "input" | "failed"
  /** The decision event; for `input` and `failed`, the event the decider was handling. */
  readonly id: string
  readonly type: string
  readonly stream: string
  readonly causationId: string | null
  readonly decider: string | null
  /** One line. */
  readonly reason: string
  readonly diff: ReadonlyArray<FieldDiff>
  /** For `input`: the recorded event that disagreed (ModelCalled, TrajectoryRecorded). */
  readonly inputEvent?: string
  /** For an altered or missing blob: its hash. */
  readonly blob?: string
}

const short = (id: string) => id.slice(0, 12)

const messageLine = (e: unknown): string => joinLines(messageOf(e))

/** The diff an input mismatch amounts to, in the recorded event's own field paths. */
const inputDiff = (e: Record<string, unknown>): Pick<Divergence, "diff" | "inputEvent" | "blob"> => {
  switch (e._tag) {
    case "ModelRequestMismatch":
      return { inputEvent: e.eventId as string, diff: [{ path: "data.requestDigest", logged: e.recorded, rederived: e.requested }] }
    case "ActionMismatch":
      return {
        inputEvent: e.eventId as string,
        diff: diffValues(JSON.parse(e.recorded as string), JSON.parse(e.requested as string), `data.steps[${e.step}].action`)
      }
    case "BlobAltered": {
      const step = e.step as number
      const path = step < 0 ? `data.initial.${e.field}` : `data.steps[${step}].observation.${e.field}`
      return {
        inputEvent: e.eventId as string,
        blob: e.hash as string,
        diff: [{ path, logged: e.hash, ...(e.actual === null ? {} : { rederived: e.actual }) }]
      }
    }
    default:
      return { diff: [] }
  }
}

export const compareDecisions = (input: {
  readonly events: ReadonlyArray<CoreEvent>
  readonly registry: DeciderRegistry
  readonly rederived: ReadonlyArray<Rederived>
  readonly failures: ReadonlyArray<DeciderFailure>
  readonly round?: number | undefined
}): { decisionEvents: number; rederived: number; divergences: Array<Divergence> } => {
  const { events, registry, round } = input
  const indexById = new Map(events.map((e, i) => [e.id, i]))
  const rounds = new Map<string, number | null>()
  // An event's round is its own `data.round`, else its cause's: RunStarted has none, its jobs do.
  const roundOf = (e: CoreEvent, depth = 0): number | null => {
    const own = (e.data as { round?: unknown }).round
    if (typeof own === "number") return own
    if (e.causationId === null || depth > 64) return null
    if (rounds.has(e.causationId)) return rounds.get(e.causationId)!
    const cause = indexById.get(e.causationId)
    const r = cause === undefined ? null : roundOf(events[cause]!, depth + 1)
    rounds.set(e.causationId, r)
    return r
  }
  const inRound = (e: CoreEvent) => round === undefined || roundOf(e) === round

  // The workspace's events are facts the deciders fold, never a run's decisions: a run decides
  // only on its own streams, and a workspace event of a decision's type was written by someone else.
  const logged = events.flatMap((e, index) => (registry.emits.has(e.type) && !e.stream.startsWith("ws.") ? [{ e, index }] : []))
  const byId = new Map<string, Rederived>()
  const extras: Array<Rederived> = []
  for (const r of input.rederived) {
    // Two deciders deriving one id: the second cannot match a logged event of its own.
    if (byId.has(r.event.id)) extras.push(r)
    else byId.set(r.event.id, r)
  }

  const anchored: Array<{ at: number; d: Divergence }> = []
  const base = (e: CoreEvent) => ({ id: e.id, type: e.type, stream: e.stream, causationId: e.causationId })
  let decisionEvents = 0
  for (const { e, index } of logged) {
    const twin = byId.get(e.id)
    byId.delete(e.id)
    if (!inRound(e)) continue
    decisionEvents++
    if (twin && sameDecision(e, twin.event)) continue
    if (twin) {
      const diff = diffValues(comparable(e), comparable(twin.event))
      const reason = `${e.type} ${short(e.id)} re-derived with ${diff.length} field${diff.length === 1 ? "" : "s"} changed`
      anchored.push({ at: index, d: { kind: "changed", ...base(e), decider: twin.decider, reason, diff } })
      continue
    }
    const cause = e.causationId === null ? undefined : indexById.get(e.causationId)
    const decider =
      registry.deciders.find(
        (d) => d.emits.includes(e.type as never) && (cause === undefined || d.handles.includes(events[cause]!.type as never))
      )?.name ?? null
    const reason = `logged ${e.type} ${short(e.id)} was not re-derived`
    anchored.push({ at: index, d: { kind: "missing", ...base(e), decider, reason, diff: [{ path: "$", logged: comparable(e) }] } })
  }
  for (const r of [...byId.values(), ...extras].filter((r) => inRound(r.event))) {
    const reason = `re-derived ${r.event.type} ${short(r.event.id)} is not in the log`
    anchored.push({
      at: r.causeIndex + 0.5,
      d: { kind: "extra", ...base(r.event), decider: r.decider, reason, diff: [{ path: "$", rederived: comparable(r.event) }] }
    })
  }
  for (const f of input.failures) {
    const cause = events[f.causeIndex]!
    const concerns =
      round === undefined || roundOf(cause) === round || logged.some(({ e }) => e.causationId === cause.id && roundOf(e) === round)
    if (!concerns) continue
    const err = (typeof f.error === "object" && f.error !== null ? f.error : {}) as Record<string, unknown>
    const mismatch = inputMismatchTags.has(String(err._tag))
    anchored.push({
      at: f.causeIndex + 0.25,
      d: mismatch
        ? { kind: "input", ...base(cause), decider: f.decider, reason: messageLine(f.error), ...inputDiff(err) }
        : {
            kind: "failed",
            ...base(cause),
            decider: f.decider,
            reason: `decider ${f.decider} failed on ${cause.type} ${short(cause.id)}: ${messageLine(f.error)}`,
            diff: []
          }
    })
  }
  anchored.sort((a, b) => a.at - b.at)
  return { decisionEvents, rederived: input.rederived.length, divergences: anchored.map((a) => a.d) }
}
