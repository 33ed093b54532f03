/**
 * A property of every pseudo-demo, checked offline over the recorded fixture run: its round
 * extrapolated again under the data rules of version 2, each new task's own label
 * functions hold on its pseudo-demo in order, and no kept step can be removed unless it is
 * needed to reach a later step's page or one of those label functions fails without it.
 * The label functions run in the real sandbox; nothing is played again.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import { isChain } from "@core/domain"
import type { GraphNode, GraphPath, PseudoDemoPlan, StrategyGraph } from "@core/domain"
import type { CoreEvent } from "@core/events"
import { defineDecider } from "@core/engine"
import { extrapolation } from "../../deciders/Extrapolation.ts"
import { extrapolationSteps, pseudoDemoTrajectory } from "../../PseudoDemos.ts"
import type { TrajectoryData } from "../../RunState.ts"
import { loadRecordedTrajectory } from "../../Trajectories.ts"
import { verifyTrajectory } from "../../Verification.ts"
import { fixtureLog } from "./Fixture.ts"
import { dataOf, deciderSpecs } from "@core/engine/testing"
import { specKit } from "./Kit.ts"

const { spec, dispose } = deciderSpecs("pseudo-demo-property", specKit)
afterAll(dispose)

/** The fixture's log with its run deciding by the data rules 2, and room for every task its episodes did. */
const underRules2 = (log: ReadonlyArray<CoreEvent>): ReadonlyArray<CoreEvent> =>
  log.map((e) =>
    e.type === "RunStarted"
      ? ({ ...e, data: { ...e.data, config: { ...e.data.config, "run.dataRules": "2", "run.extrapolatePerTask": 10 } } } as CoreEvent)
      : e
  )

interface Case {
  readonly taskId: string
  readonly parent: TrajectoryData
  readonly plan: PseudoDemoPlan
  readonly graph: StrategyGraph
  readonly codes: ReadonlyMap<string, string>
}

/** Does the task's path pass on the pseudo-demo of `plan`? Decided in the spec runtime, which has the sandbox. */
const passes = (c: Case, plan: PseudoDemoPlan) => {
  let verdict = ""
  const probe = defineDecider({
    name: "probe",
    version: "1",
    handles: ["RoundCompleted"],
    emits: [],
    decide: () =>
      Effect.gen(function* () {
        const t = yield* loadRecordedTrajectory(pseudoDemoTrajectory(c.parent, plan))
        const r = yield* verifyTrajectory({ graph: c.graph, codes: c.codes, trajectory: t, key: `probe:${plan.stepIndices.join(",")}` })
        verdict = r.kind === "verdict" ? r.verdict.verdict : "infra-error"
        return []
      })
  })
  return async (cause: CoreEvent) => {
    await spec(probe).given([]).when(cause).run()
    return verdict
  }
}

test("given the fixture's round extrapolated under the data rules 2, then every pseudo-demo passes its own path, and no kept step is spare", async () => {
  const log = underRules2(fixtureLog())
  const i = log.findIndex((e) => e.type === "RoundCompleted" && e.data.round === 1)
  const { events } = await spec(extrapolation).given(log.slice(0, i)).when(log[i]!).run()
  const parents = new Map(log.flatMap((e) => (e.type === "TrajectoryRecorded" ? [[e.data.trajectoryId, e.data] as const] : [])))
  const cases: Array<Case> = dataOf(events, "TaskExtrapolated").map((x) => {
    const nodes = dataOf(events, "NodeExpanded").filter((n) => n.taskId === x.newTaskId) as ReadonlyArray<GraphNode>
    const paths = dataOf(events, "PathAdded").filter((p) => p.taskId === x.newTaskId) as ReadonlyArray<GraphPath>
    const codes = new Map(
      dataOf(events, "LabelFunctionInferred").flatMap((lf) => (lf.taskId === x.newTaskId ? [[lf.lfId, lf.code] as const] : []))
    )
    return {
      taskId: x.newTaskId,
      parent: parents.get(x.pseudoDemoTrajectoryId)!,
      plan: { stepIndices: x.pseudoDemoStepIndices ?? [], addsClosing: x.pseudoDemoAddsClosing === true },
      graph: { taskId: x.newTaskId, nodes, paths },
      codes
    }
  })
  // The fixture's episodes do name tasks: the property is checked on real pseudo-demos, not none.
  expect(cases.length).toBeGreaterThan(0)
  for (const c of cases) {
    const steps = extrapolationSteps(c.parent)
    const last = pseudoDemoTrajectory(c.parent, c.plan).steps.at(-1)!
    expect(["status", "answer"]).toContain(last.action.kind)
    expect(isChain(steps, c.plan.stepIndices)).toBe(true)
    expect(await passes(c, c.plan)(log[i]!)).toBe("pass")
    for (const k of c.plan.stepIndices) {
      const without = { ...c.plan, stepIndices: c.plan.stepIndices.filter((x) => x !== k) }
      if (without.stepIndices.length === 0) continue
      const reachable =
        isChain(steps, without.stepIndices) && steps[without.stepIndices[0]!]!.urlBefore === steps[c.plan.stepIndices[0]!]!.urlBefore
      // Removable only if the chain breaks without it, or the task's own LFs no longer pass.
      if (reachable) expect(await passes(c, without)(log[i]!)).not.toBe("pass")
    }
  }
})
