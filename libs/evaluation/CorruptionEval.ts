/**
 * `eval corruptions`: the hard-negative suite (CorruptionSet.ts), cached under its own key
 * like the label evaluation set, labelled by each demo's LFs as a run's round 0 reads them
 * (LabelEval.ts `demoLabelling`) or by a run's strategy graphs, and its report. EVALUATION CODE.
 *
 * The report's figures are per corruption type: negatives, false passes (CORE labelled a
 * confirmed negative successful), and discarded corruptions (the checker still passed them)
 * with how many of those CORE accepted; with the label functions that held on each false
 * pass, so an audit can see what let it through. The sources are the suite's positives,
 * which give recall, NPV and κ their other side; a discarded corruption is right only by a
 * checker that may be lenient (a comment posted twice), so it is counted, not scored.
 *
 * @example
 * const report = corruptionReport(set, tasks, labels, started)
 * report.by_type["drop-key-step"] // { negatives: 41, false_passes: 0, discarded: 3, discarded_accepted: 1, not_built: 2 }
 */
import { digest } from "@core/events"
import { CORRUPTION_TYPES } from "@core/sites/solutions"
import type { CorruptionType } from "@core/sites/solutions"
import type { Suite } from "@core/sites/suites"
import type { Action, CoreEvent } from "@core/events"
import { confusionFigures, finalVerdicts } from "@core/pipeline"
import type { TaskLabels, TrajectoryLabel } from "./LabelAccuracy.ts"
import type { CorruptionSet, RunPass } from "./CorruptionSet.ts"

/**
 * Bump when the suite's construction changes, so stale caches are not read. 2: discarded
 * corruptions kept beside the negatives; 3: every key step dropped and doubled, not one drawn.
 */
export const SUITE_VERSION = "3"

export interface CorruptionKeyOptions {
  readonly suite: string | undefined
  readonly instances: ReadonlyArray<string> | undefined
  readonly demosOnly: boolean
  /** With `--run`: the run and the trajectories of its passes, the suite's sources. */
  readonly run?: { readonly runId: string; readonly passes: ReadonlyArray<string> }
}

/** A run's verified passes (a promoted partial counts), each with the actions it recorded. */
export const runPassesOf = (events: ReadonlyArray<CoreEvent>): ReadonlyArray<RunPass> => {
  const actions = new Map<string, ReadonlyArray<Action>>()
  for (const e of events)
    if (e.type === "TrajectoryRecorded")
      actions.set(
        e.data.trajectoryId,
        e.data.steps.map((s) => s.action)
      )
  return finalVerdicts(events).flatMap((v) => {
    const a = actions.get(v.trajectoryId)
    return v.verdict === "pass" && a !== undefined ? [{ trajectoryId: v.trajectoryId, taskId: v.taskId, actions: a }] : []
  })
}

/** The cache key of the suite these options build from these suites. */
export const corruptionSetKey = (options: CorruptionKeyOptions, suites: ReadonlyArray<Suite>): string =>
  digest({
    SUITE_VERSION,
    options,
    suites: suites.map((s) => ({ suite: s.suite, version: s.version, tasks: s.tasks.filter((t) => t.variant === undefined) }))
  }).slice(0, 16)

export interface TypeFigures {
  readonly negatives: number
  readonly false_passes: number
  /** Played, but right by the checker: positives, which a judge should accept. */
  readonly discarded: number
  readonly discarded_accepted: number
  readonly not_built: number
}

export const corruptionReport = (
  set: CorruptionSet,
  tasks: ReadonlyArray<TaskLabels>,
  labels: ReadonlyArray<TrajectoryLabel>,
  started: number
) => {
  const negatives = labels.filter((l) => !l.checker)
  const sources = labels.filter((l) => l.kind === "source")
  const count = (ls: ReadonlyArray<TrajectoryLabel>, f: (l: TrajectoryLabel) => boolean) => ls.filter(f).length
  const tp = count(sources, (l) => l.pass)
  const fp = count(negatives, (l) => l.pass)
  const codes = new Map(tasks.flatMap((t) => t.lfs.map((lf) => [lf.lfId, lf] as const)))
  const note = new Map(set.trajectories.map((t) => [t.id, t.note]))
  const byType = (type: CorruptionType): TypeFigures => ({
    negatives: count(negatives, (l) => l.kind === type),
    false_passes: count(negatives, (l) => l.kind === type && l.pass),
    discarded: count(labels, (l) => l.kind === type && l.checker),
    discarded_accepted: count(labels, (l) => l.kind === type && l.checker && l.pass),
    not_built: set.notBuilt.filter((d) => d.kind === type).length
  })
  return {
    tasks: tasks.length,
    sources: { ...set.sources, labelled_pass: count(sources, (l) => l.pass) },
    negatives: negatives.length,
    false_passes: fp,
    discarded: count(labels, (l) => l.checker && l.kind !== "source"),
    // Over the sources and the confirmed negatives. A discarded corruption is right only by a checker that may be lenient
    // (a second comment posted, another item added too): how many CORE accepted is said per type, not scored.
    ...confusionFigures({ tp, fp, tn: negatives.length - fp, fn: sources.length - tp }),
    by_type: Object.fromEntries(CORRUPTION_TYPES.map((t) => [t, byType(t)])) as Record<CorruptionType, TypeFigures>,
    false_pass_list: negatives
      .filter((l) => l.pass)
      .map((l) => ({
        id: l.id,
        type: l.kind,
        note: note.get(l.id) ?? "",
        held: l.held.map((h) => ({ ...h, evidence: codes.get(h.lfId)?.evidence ?? null }))
      })),
    discarded_list: set.discarded,
    seconds: Math.round((Date.now() - started) / 100) / 10
  }
}
export type CorruptionReport = ReturnType<typeof corruptionReport>
