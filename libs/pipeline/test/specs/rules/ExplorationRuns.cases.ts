/**
 * The exploration rules that act in the rollout deciders rather than the policy: where
 * explorers start (Rollouts.spec.test.ts's `starts`) and an episode that ends once a path
 * of its graph holds (EpisodeEnd.spec.test.ts's wandering model in the forum).
 *
 * @example
 * explorationRuns.endsOnSatisfiedPath // { run, before: "budget-exhausted", after: "completed" }
 */
import type { CoreEvent } from "@core/events"
import { rollouts } from "../../../deciders/Rollouts.ts"
import { jobQueued, roundStarted, runStarted } from "../Events.ts"
import type { RunOptions } from "../Events.ts"
import { forumSite, openBoard, openBoardDemo, openBoardGraph, tasks, upvote, upvoteDemo, upvoteGraph } from "../Forum.ts"
import { dataOf } from "@core/engine/testing"
import type { Table } from "./Cases.ts"
import { spec } from "./Cases.ts"

const version = (v: string) => v as RunOptions["exploration"]
const answer = (o: Record<string, string>) => JSON.stringify({ thought: "", ...o })
/** Cycling (home's e4), then back and forth between the forum home (a board's e2) and other boards, never saying complete. */
const wandering = { policy: ["e4", "e2", "e5", "e2", "e6", "e2"].map((element) => answer({ action: "click", element })) }

/** The outcome of sample `sample`'s rollout, played live in the forum by the wandering model under `v`. */
const outcomeOf = async (v: string, sample: number) => {
  const given: ReadonlyArray<CoreEvent> = [
    ...tasks,
    openBoardDemo,
    runStarted({ tasks: [openBoard.taskId], demos: "all", policy: "model", model: "m", stepBudget: 6, exploration: version(v) }),
    ...openBoardGraph,
    roundStarted({ round: 1, taskIds: [openBoard.taskId] })
  ]
  // Each version plays its own sample: the sandbox keeps a trajectory under its run and id.
  const queued = jobQueued({
    jobId: `rollout-r1-s${sample}-${openBoard.taskId}`,
    kind: "rollout",
    round: 1,
    taskId: openBoard.taskId,
    params: { trajectoryId: `r1-s${sample}-${openBoard.taskId}`, sample, stepBudget: 6 }
  })
  const { events } = await spec(rollouts).given(given).when(queued).answering(wandering).observing(forumSite()).run()
  return dataOf(events, "TrajectoryRecorded")[0]!.outcome
}

/** Where the upvote task's five explorers start under `v` (-1: the start state; else after that demo step). */
const explorerFromSteps = async (v: string) => {
  const run = runStarted({
    tasks: [openBoard.taskId, upvote.taskId],
    samples: 2,
    stepBudget: 4,
    explorePerTask: 5,
    exploration: version(v)
  })
  const { events } = await spec(rollouts)
    .given([...tasks, run, upvoteDemo, ...upvoteGraph])
    .when(roundStarted({ round: 1, taskIds: [upvote.taskId] }))
    .run()
  return dataOf(events, "JobQueued")
    .filter((j) => j.kind === "explore")
    .map((j) => j.params.fromStep)
}

export const explorationRuns: Pick<Table["exploration"], "startsAfterPageChange" | "startsAfterStateChange" | "endsOnSatisfiedPath"> = {
  startsAfterPageChange: {
    run: explorerFromSteps,
    // The demo searched (another page), opened the post (another page), upvoted there, said complete.
    before: [-1, -1, 0, 1, 2],
    after: [-1, -1, 0, 1, 0]
  },
  startsAfterStateChange: {
    // The upvote changed the post in place: an explorer starts from the upvoted post too, before the page changes.
    run: explorerFromSteps,
    before: [-1, -1, 0, 1, 0],
    after: [-1, -1, 2, 0, 1]
  },
  endsOnSatisfiedPath: {
    run: (v) => outcomeOf(v, 40 + Number(v)),
    before: "budget-exhausted",
    after: "completed"
  }
}
