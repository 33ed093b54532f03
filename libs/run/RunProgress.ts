/**
 * What a run tells its user as its events are appended: a line per inferred demo, sealed
 * dataset, expansion and extrapolation, a bar per round counting its episodes, and — with
 * workers — each worker's share of the round.
 *
 * @example
 * const tell = progressLines(progress, plan.rounds, shares)
 * drive({ …, onEvent: tell })
 */
import { plural } from "@core/demos"
import type { CoreEvent } from "@core/events"

/** Where the engine tells what it is doing; `bun core` draws it as a progress bar. */
export interface RunProgress {
  line(text: string): void
  start(label: string, total: number): void
  expect(n: number): void
  /** Environment steps played, one by default. */
  tick(steps?: number): void
  count(outcome: string): void
  done(text: string): void
}

/** The progress a run's event gives; `shares` counts each worker's episodes (empty without workers). */
export const progressLines =
  (progress: RunProgress, rounds: number, shares: ReadonlyMap<string, number>) =>
  (e: CoreEvent): void => {
    switch (e.type) {
      case "TaskExtrapolated":
        progress.line(
          `extrapolate: ${e.data.lineage.parentTaskId}: "${e.data.instruction}" (${e.data.generator}, from ${e.data.pseudoDemoTrajectoryId})`
        )
        return
      case "DatasetSealed":
        progress.line(
          `dataset: round ${e.data.round} sealed, ${e.data.recordCount} new records (sft ${e.data.counts.sft}, dpo ${e.data.counts.dpo}, rollout ${e.data.counts.rollout})`
        )
        return
      case "JobCompleted":
        if (e.data.jobId.startsWith("infer-"))
          progress.line(`infer: ${e.data.jobId.slice(6)}: ${e.data.error ?? plural(e.data.produced.length - 2, "label function")}`)
        return
      case "RoundStarted":
        if (e.data.round > 0) progress.start(`round ${e.data.round}/${rounds}`, 0)
        return
      case "PolicyTrained": {
        const taken = e.data.published
        progress.line(
          taken === undefined
            ? `policy: trained on rounds 0–${e.data.round} (${e.data.metrics.examples} examples), ${e.data.checkpoint.slice(0, 19)}`
            : taken.version === 0
              ? `policy: trainer ${taken.trainer} has published nothing yet; round ${e.data.round + 1} explores`
              : `policy: trainer ${taken.trainer}'s version ${taken.version} (${e.data.records?.count ?? 0} records), ${e.data.checkpoint.slice(0, 19)}`
        )
        return
      }
      case "JobQueued":
        if (e.data.kind === "rollout" || e.data.kind === "explore") progress.expect(1)
        return
      // Rollouts finish before their verdicts (verification follows the round's rollouts): the bar counts rollouts.
      case "TrajectoryRecorded":
        progress.count(e.data.outcome)
        return
      case "PathAdded":
        if (e.data.source.kind === "trajectory") progress.line(`expand: ${e.data.taskId}: a new path from ${e.data.source.id}`)
        return
      case "RoundCompleted":
        if (e.data.round === 0) return
        if (shares.size > 0) progress.line(`workers: ${[...shares].map(([w, n]) => `${w} ${n}`).join(", ")} episodes`)
        progress.done(
          `round ${e.data.round}: ${Object.entries(e.data.counts)
            .map(([k, v]) => `${k} ${v}`)
            .join(", ")}`
        )
        return
    }
  }
