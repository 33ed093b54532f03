/**
 * The round decider, which paces CORE's loop: a `run` infers label functions from its
 * tasks' demos, then plays `run.rounds` rounds of rollouts → verification → expansion.
 * Round 1 starts when every inference job has completed (at once when there were none);
 * a round completes when every trajectory it queued has a verdict — its expansions and
 * extrapolations are decided on that same verdict, before this decider, so they are in the
 * log first — and the next round starts once the round's dataset is sealed, on the grown
 * graphs and the grown task pool.
 *
 * @example
 * const [roundStarted] = yield* rounds.decide(state, lastInferJobCompleted)
 */
import { Effect } from "effect"
import { RoundCompleted, RoundStarted, runStream } from "@core/events"
import type { CoreEvent } from "@core/events"
import { decision, defineDecider } from "@core/engine"
import { policyName } from "../Rollout.ts"
import { demoCount } from "../RunConfig.ts"
import { evolveRun, initialRunState, poolOf, roundVerdicts } from "../RunState.ts"
import type { RunState } from "../RunState.ts"

const startRound = (s: RunState, e: CoreEvent, round: number, ordinal = 0) =>
  decision(RoundStarted, {
    stream: runStream(e.runId!, "round", String(round)),
    causationId: e.id,
    ordinal,
    data: { round, taskIds: [...poolOf(s)], policy: policyName(s.config!.policy), samplesPerTask: s.config!.samples }
  })

/**
 * Round 0 is the demos: nothing to roll out, but it completes like any round, so its
 * dataset (the demos as sft records) is built and sealed — what behaviour cloning trains on.
 */
const demoRound = (s: RunState, e: CoreEvent) => {
  const stream = runStream(e.runId!, "round", "0")
  return [
    decision(RoundStarted, {
      stream,
      causationId: e.id,
      ordinal: 0,
      data: { round: 0, taskIds: [], policy: policyName(s.config!.policy), samplesPerTask: 0 }
    }),
    decision(RoundCompleted, {
      stream,
      causationId: e.id,
      ordinal: 0,
      data: { round: 0, counts: { demos: demoCount(s.config!, s.demos) }, datasetDigest: null }
    })
  ]
}

export const rounds = defineDecider({
  name: "rounds",
  version: "1",
  handles: ["RunStarted", "JobCompleted", "TrajectoryVerified", "DatasetSealed", "PolicyTrained"],
  emits: ["RoundStarted", "RoundCompleted"],
  initial: initialRunState,
  evolve: evolveRun,
  decide: (s: RunState, e: CoreEvent) =>
    Effect.sync(() => {
      const config = s.config
      if (config === null || e.runId === null || config.rounds === 0) return []
      // The inference jobs this RunStarted queues are not folded yet: count the demos it names.
      if (e.type === "RunStarted") return demoCount(config, s.demos) === 0 ? demoRound(s, e) : []
      if (e.type === "JobCompleted" && e.data.jobId.startsWith("infer-")) {
        return s.round === 0 && s.roundsCompleted < 0 && s.inferJobs.done === s.inferJobs.queued ? demoRound(s, e) : []
      }
      // A round's data is sealed (Datasets) — and, for a policy trained in the run, learned from — before the next round plays.
      const next = config.policy.kind === "embedded" || config.policy.kind === "learned" ? "PolicyTrained" : "DatasetSealed"
      if (e.type === "DatasetSealed" || e.type === "PolicyTrained") {
        return e.type === next && e.data.round < config.rounds && e.data.round === s.roundsCompleted
          ? [startRound(s, e, e.data.round + 1)]
          : []
      }
      if (e.type !== "TrajectoryVerified") return []
      const round = s.round
      const verdicts = roundVerdicts(s, round)
      if (verdicts.length !== (s.episodesQueued.get(round) ?? 0) || s.roundsCompleted >= round) return []
      const counts: Record<string, number> = { trajectories: verdicts.length, pass: 0, partial: 0, fail: 0, "infra-error": 0 }
      for (const v of verdicts) counts[v.verdict] = (counts[v.verdict] ?? 0) + 1
      counts.paths = [...s.graphs.values()].filter((g) => config.tasks.includes(g.taskId)).reduce((n, g) => n + g.paths.length, 0)
      const completed = decision(RoundCompleted, {
        stream: runStream(e.runId, "round", String(round)),
        causationId: e.id,
        ordinal: 0,
        data: { round, counts, datasetDigest: null }
      })
      return [completed]
    })
})
