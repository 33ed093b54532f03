/** Given a run's verdicts and an outside judgement of the same episodes, then the agreement figures. */
import { describe, expect, test } from "bun:test"
import type { Action, CoreEvent } from "@core/events"
import { agreementOf, confusionFigures } from "../Agreement.ts"

const click = (name: string, elementId: string): Action => ({ kind: "click", target: { role: "link", name, elementId, text: name } })
const demo = (taskId: string, actions: ReadonlyArray<Action>) =>
  ({ type: "DemoIngested", data: { taskId, steps: actions.map((action) => ({ action })) } }) as unknown as CoreEvent
const recorded = (trajectoryId: string, actions: ReadonlyArray<Action>) =>
  ({ type: "TrajectoryRecorded", data: { trajectoryId, steps: actions.map((action) => ({ action })) } }) as unknown as CoreEvent
const verified = (trajectoryId: string, taskId: string, verdict: string) =>
  ({ type: "TrajectoryVerified", data: { trajectoryId, taskId, verdict } }) as unknown as CoreEvent

const shown = [click("Storm Protocol", "e3")]
const other = [click("All", "e9"), click("Storm Protocol", "e12")]

describe("agreement with an outside judgement", () => {
  test("precision, recall and agreement over judged trajectories; infra-errors and unjudged ones do not count", () => {
    const events = [
      demo("t1", shown),
      recorded("a", shown),
      verified("a", "t1", "pass"), // true positive, the demo's own path
      recorded("b", other),
      verified("b", "t1", "pass"), // true positive on a path no demo showed
      recorded("c", other),
      verified("c", "t1", "pass"), // false positive
      recorded("d", shown),
      verified("d", "t1", "fail"), // false negative
      recorded("e", shown),
      verified("e", "t2", "partial"), // true negative, another task
      recorded("f", shown),
      verified("f", "t1", "infra-error"),
      recorded("g", shown),
      verified("g", "t1", "pass") // never judged
    ]
    const judged = new Map(
      [
        ["a", true],
        ["b", true],
        ["c", false],
        ["d", true],
        ["e", false],
        ["f", true]
      ].map(([k, v]) => [k as string, { success: v as boolean }])
    )
    const { overall, per_task } = agreementOf(events, judged)
    expect(overall).toEqual({
      judged: 5,
      predicted_pass: 3,
      novel_predicted_pass: 2,
      precision: 0.6667,
      recall: 0.6667,
      npv: 0.5,
      agreement: 0.6,
      kappa: 0.1667
    })
    expect(per_task.t1).toEqual({
      judged: 4,
      predicted_pass: 3,
      novel_predicted_pass: 2,
      precision: 0.6667,
      recall: 0.6667,
      npv: 0,
      agreement: 0.5,
      kappa: -0.3333
    })
    expect(per_task.t2).toEqual({
      judged: 1,
      predicted_pass: 0,
      novel_predicted_pass: 0,
      precision: null,
      recall: null,
      npv: 1,
      agreement: 1,
      kappa: null
    })
  })

  test("element ids do not make a demo's path novel; another task's demo does not make it known", () => {
    const again = [click("Storm Protocol", "e77")]
    const events = [demo("t1", shown), recorded("a", again), verified("a", "t1", "pass"), recorded("b", shown), verified("b", "t2", "pass")]
    const { per_task } = agreementOf(
      events,
      new Map([
        ["a", { success: true }],
        ["b", { success: true }]
      ])
    )
    expect(per_task.t1!.novel_predicted_pass).toBe(0)
    expect(per_task.t2!.novel_predicted_pass).toBe(1)
  })
})

describe("confusion figures: the terms published judges report", () => {
  const cases: ReadonlyArray<[string, { tp: number; fp: number; tn: number; fn: number }, Record<string, number | null>]> = [
    ["perfect agreement", { tp: 10, fp: 0, tn: 10, fn: 0 }, { precision: 1, recall: 1, npv: 1, agreement: 1, kappa: 1 }],
    ["precise but refusing right paths", { tp: 40, fp: 0, tn: 50, fn: 10 }, { precision: 1, recall: 0.8, npv: 0.8333, kappa: 0.8 }],
    ["no better than chance", { tp: 25, fp: 25, tn: 25, fn: 25 }, { precision: 0.5, agreement: 0.5, kappa: 0 }],
    ["always wrong", { tp: 0, fp: 5, tn: 0, fn: 5 }, { precision: 0, npv: 0, kappa: -1 }],
    [
      "only negatives, all refused: κ has no chance baseline",
      { tp: 0, fp: 0, tn: 7, fn: 0 },
      { precision: null, recall: null, npv: 1, kappa: null }
    ],
    ["nothing judged", { tp: 0, fp: 0, tn: 0, fn: 0 }, { precision: null, npv: null, agreement: null, kappa: null }]
  ]
  for (const [name, confusion, expected] of cases)
    test(name, () => {
      expect(confusionFigures(confusion)).toMatchObject(expected)
    })
})
