/**
 * What-if (docs/architecture.md, "Replay"): "what would this changed label function have labeled?" The
 * run's log is read as its deciders saw it, the LF's code is swapped in every
 * LabelFunctionInferred that defines it (its id stays, so the graphs still name it), and
 * the verification decider re-scores every trajectory against the graphs of its round
 * with the recorded inputs. The verdicts that differ from the logged ones are the flips.
 *
 * Only verdicts are re-derived: a changed LF could also have changed expansion and so the
 * later rounds' graphs, which this does not follow — it answers for the graphs as they were.
 *
 * @example
 * const flips = yield* whatIf({ runId, replace: new Map([[lfId, newCode]]) })
 * flips.flips[0] // { trajectoryId, taskId, logged: "pass", rederived: "partial" }
 */
import { Effect, Schema } from "effect"
import type { CoreEvent } from "@core/events"
import { makeDeciderRegistry, readRunLog, recordedServices, rederive } from "@core/engine"
import { verification } from "./deciders/Rollouts.ts"

export class LabelFunctionNotInRun extends Schema.TaggedError<LabelFunctionNotInRun>()("LabelFunctionNotInRun", {
  runId: Schema.String,
  lfId: Schema.String,
  matches: Schema.Number
}) {
  override get message() {
    return this.matches === 0
      ? `run ${this.runId} has no label function ${this.lfId}`
      : `${this.lfId} is ambiguous in run ${this.runId}: ${this.matches} label functions start with it`
  }
}

export interface Flip {
  readonly trajectoryId: string
  readonly taskId: string
  readonly logged: string
  readonly rederived: string
}

export interface WhatIfReport {
  readonly runId: string
  /** Full ids of the replaced LFs. */
  readonly replaced: ReadonlyArray<string>
  readonly trajectories: number
  readonly flips: ReadonlyArray<Flip>
}

export const whatIf = (options: { readonly runId: string; readonly replace: ReadonlyMap<string, string> }) =>
  Effect.gen(function* () {
    const { events } = yield* readRunLog(options.runId)
    const ids = [...new Set(events.flatMap((e) => (e.type === "LabelFunctionInferred" ? [e.data.lfId] : [])))]
    const full = new Map<string, string>()
    for (const [prefix, code] of options.replace) {
      const hits = ids.filter((id) => id.startsWith(prefix.toLowerCase()))
      if (hits.length !== 1) return yield* new LabelFunctionNotInRun({ runId: options.runId, lfId: prefix, matches: hits.length })
      full.set(hits[0]!, code)
    }
    const changed = events.map(
      (e): CoreEvent =>
        e.type === "LabelFunctionInferred" && full.has(e.data.lfId) ? { ...e, data: { ...e.data, code: full.get(e.data.lfId)! } } : e
    )
    const { rederived } = yield* Effect.provide(rederive(changed, makeDeciderRegistry([verification])), recordedServices(changed))
    const logged = new Map(events.flatMap((e) => (e.type === "TrajectoryVerified" ? [[e.data.trajectoryId, e.data] as const] : [])))
    const flips: Array<Flip> = []
    for (const r of rederived) {
      if (r.event.type !== "TrajectoryVerified") continue
      const before = logged.get(r.event.data.trajectoryId)
      if (before !== undefined && before.verdict !== r.event.data.verdict) {
        flips.push({
          trajectoryId: r.event.data.trajectoryId,
          taskId: r.event.data.taskId,
          logged: before.verdict,
          rederived: r.event.data.verdict
        })
      }
    }
    return { runId: options.runId, replaced: [...full.keys()], trajectories: logged.size, flips } satisfies WhatIfReport
  })
