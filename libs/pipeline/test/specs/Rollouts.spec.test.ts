/**
 * The rollouts decider: a round's RoundStarted queues `samples` rollouts per task of the
 * run (fewer for an extrapolated task) and the explorer's episodes where the task has a
 * demo path; each queued episode is played — here in the in-memory forum, or from its
 * recording as replay does — into one TrajectoryRecorded and its JobCompleted.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { runStream } from "@core/events"
import type { CoreEvent } from "@core/events"
import { rollouts } from "../../deciders/Rollouts.ts"
import { jobQueued, RUN, roundStarted, runStarted, trajectoryRecorded } from "./Events.ts"
import type { RunOptions } from "./Events.ts"
import {
  click,
  complete,
  forumSite,
  openBoard,
  openBoardDemo,
  openBoardGraph,
  tasks,
  trajectory,
  upvote,
  upvoteDemo,
  upvoteGraph
} from "./Forum.ts"
import { fixtureLog, idsAndData, loggedDecisions } from "./Fixture.ts"
import { dataOf, deciderSpecs, typesOf } from "@core/engine/testing"
import { specKit } from "./Kit.ts"

const { spec, dispose } = deciderSpecs("rollouts", specKit)
afterAll(dispose)

const run = (o: RunOptions = {}) =>
  runStarted({ tasks: [openBoard.taskId, upvote.taskId], samples: 2, stepBudget: 4, explorePerTask: 0, ...o })
const queuedIds = (events: ReadonlyArray<CoreEvent>) => dataOf(events, "JobQueued").map((j) => j.jobId)

describe("rollouts: a round queues its episodes", () => {
  const cases: ReadonlyArray<{ name: string; given: ReadonlyArray<CoreEvent>; round: CoreEvent; jobs: ReadonlyArray<string> }> = [
    {
      name: "samples rollouts per task of the round",
      given: [run()],
      round: roundStarted({ round: 1, taskIds: [openBoard.taskId, upvote.taskId] }),
      jobs: [
        "rollout-r1-s0-forum-open-board-1",
        "rollout-r1-s1-forum-open-board-1",
        "rollout-r1-s0-forum-upvote-1",
        "rollout-r1-s1-forum-upvote-1"
      ]
    },
    {
      name: "an extrapolated task in the pool gets run.extrapolatedSamples rollouts, not the round's samples",
      given: [run({ extrapolatedSamples: 1 })],
      round: roundStarted({ round: 2, taskIds: [openBoard.taskId, "forum-open-board-1-x15b78504"] }),
      jobs: ["rollout-r2-s0-forum-open-board-1", "rollout-r2-s1-forum-open-board-1", "rollout-r2-s0-forum-open-board-1-x15b78504"]
    },
    {
      name: "explorer episodes join a task with a demo path: two from the start, the rest from its nodes",
      given: [run({ explorePerTask: 3 }), openBoardDemo, ...openBoardGraph],
      round: roundStarted({ round: 1, taskIds: [openBoard.taskId] }),
      jobs: [
        "rollout-r1-s0-forum-open-board-1",
        "rollout-r1-s1-forum-open-board-1",
        "explore-x1-s0-forum-open-board-1",
        "explore-x1-s1-forum-open-board-1",
        "explore-x1-s2-forum-open-board-1"
      ]
    },
    {
      name: "no explorer for a task without a demo path",
      given: [run({ explorePerTask: 3 })],
      round: roundStarted({ round: 1, taskIds: [upvote.taskId] }),
      jobs: ["rollout-r1-s0-forum-upvote-1", "rollout-r1-s1-forum-upvote-1"]
    },
    { name: "nothing outside a run", given: [], round: roundStarted({ round: 1, taskIds: [openBoard.taskId] }), jobs: [] }
  ]
  for (const c of cases) {
    test(c.name, () =>
      spec(rollouts)
        .given([...tasks, ...c.given])
        .when(c.round)
        .then((events) => {
          expect(queuedIds(events)).toEqual([...c.jobs])
          expect(events.map((e) => e.stream)).toEqual(
            dataOf(events, "JobQueued").map((j) => runStream(RUN, "traj", String(j.params.trajectoryId)))
          )
        })
    )
  }

  test("an explorer from a node replays the demo up to it, and may rejoin the demo after", () =>
    spec(rollouts)
      .given([...tasks, run({ explorePerTask: 3 }), openBoardDemo, ...openBoardGraph])
      .when(roundStarted({ round: 1, taskIds: [openBoard.taskId] }))
      .then((events) => {
        const explorers = dataOf(events, "JobQueued")
          .filter((j) => j.kind === "explore")
          .map((j) => j.params)
        expect(explorers.map((p) => [p.fromStep, p.prefix])).toEqual([
          [-1, []],
          [-1, []],
          [0, [click("link", "Cycling")]]
        ])
        // From the start the known way on is the Cycling link: the explorer avoids it.
        expect(explorers[0]!.avoid).toEqual({ role: "link", name: "Cycling" })
        expect(explorers[2]!.rejoin).toEqual([{ urlBefore: "/forum/b/cycling", action: complete }])
      }))

  test("under exploration 3 and 4 an explorer starts only after a step that led to another page; before it, after every node", async () => {
    const starts = async (exploration: "2" | "3" | "4") => {
      const { events } = await spec(rollouts)
        .given([...tasks, run({ explorePerTask: 5, exploration }), upvoteDemo, ...upvoteGraph])
        .when(roundStarted({ round: 1, taskIds: [upvote.taskId] }))
        .run()
      return dataOf(events, "JobQueued")
        .filter((j) => j.kind === "explore")
        .map((j) => j.params.fromStep)
    }
    // The demo searched (another page), opened the post (another page), upvoted there, said complete.
    expect(await starts("3")).toEqual([-1, -1, 0, 1, 0])
    expect(await starts("4")).toEqual([-1, -1, 0, 1, 0])
    expect(await starts("2")).toEqual([-1, -1, 0, 1, 2])
  })
})

const job = (
  trajectoryId: string,
  kind: "rollout" | "explore" | "infer" = "rollout",
  params: Record<string, unknown> = { trajectoryId, sample: 0, stepBudget: 4 }
) => jobQueued({ jobId: `${kind}-${trajectoryId}`, kind, round: 1, taskId: openBoard.taskId, params })
const played = [...tasks, run(), roundStarted({ round: 1, taskIds: [openBoard.taskId] })]

describe("rollouts: a queued episode is played", () => {
  test("in the forum, the episode becomes one trajectory and a job that names it; replayed from its recording, the same", async () => {
    const queued = job("r1-s0-forum-open-board-1")
    const live = await spec(rollouts).given(played).when(queued).observing(forumSite()).run()
    expect(typesOf(live.events)).toEqual(["TrajectoryRecorded", "JobCompleted"])
    const [t] = dataOf(live.events, "TrajectoryRecorded")
    expect(t).toMatchObject({
      trajectoryId: "r1-s0-forum-open-board-1",
      taskId: openBoard.taskId,
      round: 1,
      sample: 0,
      policy: "exploration-v1",
      attempts: 1
    })
    expect(t!.steps.length).toBeGreaterThan(0)
    expect(t!.steps.length).toBeLessThanOrEqual(4)
    expect(dataOf(live.events, "JobCompleted")[0]).toMatchObject({ outcome: "done", produced: [live.events[0]!.id], error: null })
    // Replay: the recorded observations, the same seed, the same decisions.
    await spec(rollouts)
      .given(played)
      .when(queued)
      .recorded([live.events[0]!])
      .then([...live.decisions])
  })

  test("the fixture run's rollouts, decided again from its log and recorded observations, give the logged trajectories, id for id", async () => {
    const log = fixtureLog()
    const jobs = log.flatMap((e, i) => (e.type === "JobQueued" && (e.data.kind === "rollout" || e.data.kind === "explore") ? [i] : []))
    expect(jobs).toHaveLength(10)
    for (const i of jobs) {
      const { events } = await spec(rollouts)
        .given(log.slice(0, i))
        .when(log[i]!)
        .recorded(log.slice(i + 1))
        .run()
      expect(typesOf(events)).toEqual(["TrajectoryRecorded", "JobCompleted"])
      expect(idsAndData(events)).toEqual(loggedDecisions(log, log[i]!, rollouts))
    }
  })

  test("a recording of another action than the policy takes is an input mismatch, not a trajectory", () =>
    spec(rollouts)
      .given(played)
      .when(job("r1-s0-forum-open-board-1"))
      .recorded([
        trajectory(
          "r1-s0-forum-open-board-1",
          openBoard.taskId,
          Array.from({ length: 4 }, () => [click("link", "CORE Forum home"), "/forum/"] as const)
        )
      ])
      .thenFails("ActionMismatch"))

  test("an episode whose environment failed on every attempt is an infra-error trajectory and job, never a failure", () => {
    const failed = trajectoryRecorded({
      trajectoryId: "r1-s0-forum-open-board-1",
      taskId: openBoard.taskId,
      initial: {
        url: null,
        app: null,
        title: null,
        screenshot: null,
        elements: null,
        aria: null,
        truncated: false,
        error: "browser crashed"
      },
      steps: [],
      outcome: "infra-error",
      infraError: "browser crashed",
      attempts: 3
    })
    return spec(rollouts)
      .given(played)
      .when(job("r1-s0-forum-open-board-1"))
      .recorded([failed])
      .then((events) => {
        expect(dataOf(events, "TrajectoryRecorded")[0]).toMatchObject({
          outcome: "infra-error",
          steps: [],
          attempts: 3,
          infraError: "browser crashed"
        })
        expect(dataOf(events, "JobCompleted")[0]).toMatchObject({ outcome: "infra-error", attempts: 3, error: "browser crashed" })
      })
  })

  test("an episode with no recording cannot be replayed: the decision fails", () =>
    spec(rollouts).given(played).when(job("r1-s0-forum-open-board-1")).thenFails("ObservationNotRecorded"))

  const ignored: ReadonlyArray<{ name: string; when: CoreEvent }> = [
    {
      name: "an inference job",
      when: jobQueued({ jobId: "infer-d", kind: "infer", round: 0, taskId: openBoard.taskId, params: { demoId: "d" } })
    },
    { name: "a rollout job that names no trajectory", when: job("r1-s0-forum-open-board-1", "rollout", { sample: 0 }) }
  ]
  for (const c of ignored) {
    test(`${c.name} is not played`, () => spec(rollouts).given(played).when(c.when).thenNothing())
  }

  test("rollout and explorer jobs may be decided at once; a round's start may not", () => {
    expect(
      [
        job("r1-s0-t"),
        job("x1-s0-t", "explore", { trajectoryId: "x1-s0-t", sample: 0, stepBudget: 4, fromStep: -1, prefix: [], avoid: null }),
        job("d", "infer", { demoId: "d" }),
        roundStarted({ round: 1, taskIds: [] })
      ].map((e) => rollouts.concurrent?.(e))
    ).toEqual([true, true, false, false])
  })
})
