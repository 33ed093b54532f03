/**
 * The label-inference decider: a run names its demos and queues an inference job for each;
 * a job becomes the demo's Semantic Code Abstraction — steps described, key steps, one LF
 * (or a rejection) per key step — or a failed job that says why, never an LF made up.
 * With a model, its answers are the recorded ones the spec gives.
 */
import { afterAll, describe, expect, test } from "bun:test"
import type { CoreEvent } from "@core/events"
import { labelInference } from "../../deciders/LabelInference.ts"
import { demoIngested, demoStep, elements, inferJob, jobQueued, runStarted } from "./Events.ts"
import type { RunOptions } from "./Events.ts"
import { click, complete, openBoard, openBoardDemo, pageAt, tasks, upvoteDemo } from "./Forum.ts"
import { dataOf, deciderSpecs, typesOf } from "@core/engine/testing"
import { specKit } from "./Kit.ts"
import type { ModelScript } from "@core/engine/testing"

const { spec, dispose } = deciderSpecs("label-inference", specKit)
afterAll(dispose)

const workspace = [...tasks, openBoardDemo, upvoteDemo]
const infer = (o: RunOptions = {}) => runStarted({ command: "infer", demos: "all", ...o })
const fence = "```"
/** A model's answer: one fenced LF. */
const code = (body: string) => `${fence}javascript\nfunction labelFunction(t) {\n  return ${body}\n}\n${fence}`

describe("label inference: a run queues a job per demo it names", () => {
  const cases: ReadonlyArray<{ name: string; started: CoreEvent; jobs: ReadonlyArray<string> }> = [
    {
      name: "an infer run of all demos queues both, in demo id order",
      started: infer(),
      jobs: ["infer-forum-open-board-1-script", "infer-forum-upvote-1-script"]
    },
    {
      name: "a run infers first too: the demos of its tasks",
      started: runStarted({ demos: ["forum-open-board-1-script"] }),
      jobs: ["infer-forum-open-board-1-script"]
    },
    { name: "a run naming no demos queues nothing", started: infer({ demos: undefined }), jobs: [] },
    { name: "a demo id the workspace does not have is skipped", started: infer({ demos: ["forum-missing-script"] }), jobs: [] },
    { name: "another command (a demo run) is not an inference run", started: runStarted({ command: "demo", demos: "all" }), jobs: [] }
  ]
  for (const c of cases) {
    test(c.name, () =>
      spec(labelInference)
        .given(workspace)
        .when(c.started)
        .then((events) => {
          expect(dataOf(events, "JobQueued").map((j) => j.jobId)).toEqual([...c.jobs])
          expect(events.every((e) => e.stream.startsWith("run.spec-run.infer."))).toBe(true)
        })
    )
  }

  test("a job names the demo's content digest, the version it was queued for", () =>
    spec(labelInference)
      .given(workspace)
      .when(infer({ demos: ["forum-open-board-1-script"] }))
      .then((events) => {
        const [job] = dataOf(events, "JobQueued")
        expect(job).toEqual({
          jobId: "infer-forum-open-board-1-script",
          kind: "infer",
          round: 0,
          taskId: openBoard.taskId,
          params: { demoId: "forum-open-board-1-script", contentDigest: openBoardDemo.data.contentDigest }
        })
      }))
})

describe("label inference: a job infers the demo's label functions", () => {
  test("given the open-board demo, when its job runs, then each key step gets a validated LF and the job lists what it produced", () =>
    spec(labelInference)
      .given([...workspace, infer()])
      .when(inferJob(openBoardDemo))
      .then((events) => {
        expect(typesOf(events)).toEqual([
          "StepsDescribed",
          "KeyStepsIdentified",
          "LabelFunctionInferred",
          "LabelFunctionInferred",
          "JobCompleted"
        ])
        expect(dataOf(events, "KeyStepsIdentified")[0]!.keySteps.map((k) => [k.stepIndex, k.reason])).toEqual([
          [0, "reaches-final-page"],
          [1, "final-status"]
        ])
        const lfs = dataOf(events, "LabelFunctionInferred")
        expect(lfs.map((l) => [l.inference.evidence, l.validation])).toEqual([
          ["state", { onDemoAtKeyStep: 0, onPrefix: false, onFailures: [] }],
          ["action+state", { onDemoAtKeyStep: 1, onPrefix: false, onFailures: [] }]
        ])
        expect(lfs[0]!.code).toContain(String.raw`validateUrl(t, "^/forum/b/cycling(\\?.*)?$")`)
        const [done] = dataOf(events, "JobCompleted")
        expect(done).toMatchObject({ jobId: "infer-forum-open-board-1-script", outcome: "done", error: null })
        expect(done!.produced).toEqual(events.slice(0, 4).map((e) => e.id))
      }))

  test("a key step no candidate can witness is rejected with its last candidate and the reason", () => {
    // The demo ends on a page it had already visited: no LF can tell reaching it the second time.
    const roundTrip = demoIngested({
      demoId: "round-trip",
      taskId: openBoard.taskId,
      steps: [
        demoStep(click("link", "Cycling"), "/forum/", "/forum/b/cycling", pageAt("/forum/b/cycling")),
        demoStep(click("link", "CORE Forum home"), "/forum/b/cycling", "/forum/", pageAt("/forum/")),
        demoStep(click("link", "Cycling"), "/forum/", "/forum/b/cycling", pageAt("/forum/b/cycling")),
        demoStep(complete, "/forum/b/cycling", "/forum/b/cycling", pageAt("/forum/b/cycling"))
      ]
    })
    return spec(labelInference)
      .given([...workspace, roundTrip, infer()])
      .when(inferJob(roundTrip))
      .then((events) => {
        const [rejected] = dataOf(events, "LabelFunctionRejected")
        expect(rejected).toMatchObject({ keyStepIndex: 2, attempts: 1, reason: "state: held at step 0, before its key step 2" })
        expect(rejected!.candidateCode).toContain("validateUrl")
        expect(dataOf(events, "JobCompleted")[0]!.outcome).toBe("done")
      })
  })
})

describe("label inference: refusals", () => {
  test("a job for a demo version the workspace no longer has fails, and infers nothing", () => {
    const stale = jobQueued({
      jobId: "infer-forum-open-board-1-script",
      kind: "infer",
      round: 0,
      taskId: openBoard.taskId,
      params: { demoId: "forum-open-board-1-script", contentDigest: "0".repeat(64) }
    })
    return spec(labelInference)
      .given([...workspace, infer()])
      .when(stale)
      .then((events) => {
        expect(typesOf(events)).toEqual(["JobCompleted"])
        expect(dataOf(events, "JobCompleted")[0]).toMatchObject({
          outcome: "failed",
          error: expect.stringContaining("is not in the workspace")
        })
      })
  })

  test("a demo whose element lists are not in the blob store fails its job with the demo's name", () => {
    const unstored = demoIngested({
      demoId: "no-blobs",
      taskId: openBoard.taskId,
      steps: [
        demoStep(click("link", "Cycling"), "/forum/", "/forum/b/cycling", "f".repeat(64)),
        demoStep(complete, "/forum/b/cycling", "/forum/b/cycling", "f".repeat(64))
      ]
    })
    return spec(labelInference)
      .given([...workspace, unstored, infer()])
      .when(inferJob(unstored))
      .then((events) => {
        expect(typesOf(events)).toEqual(["JobCompleted"])
        expect(dataOf(events, "JobCompleted")[0]).toMatchObject({ outcome: "failed", error: expect.stringContaining("demo no-blobs:") })
      })
  })

  test("a job of another kind (a rollout) is not the decider's", () =>
    spec(labelInference)
      .given([...workspace, infer()])
      .when(
        jobQueued({ jobId: "rollout-r1-s0-t", kind: "rollout", round: 1, taskId: openBoard.taskId, params: { trajectoryId: "r1-s0-t" } })
      )
      .thenNothing())
})

describe("label inference with a model: its recorded answers", () => {
  const withModel = [...workspace, infer({ model: "spec-model" })]
  const validUrl = code(String.raw`validateUrl(t, "^/forum/b/cycling(\\?.*)?$")`)
  const validStatus = code(`validateStatus(t, "complete")`)

  test("the model's key steps and LFs, when they validate, are recorded as the model's with their calls", () =>
    spec(labelInference)
      .given(withModel)
      .when(inferJob(openBoardDemo))
      .answering({ "key-steps": ["[1, 2]"], "lf-synthesis": [validUrl, validStatus] })
      .then((events, { modelCalls }) => {
        expect(modelCalls.map((c) => [c.purpose, c.callIndex])).toEqual([
          ["key-steps", 0],
          ["lf-synthesis", 1],
          ["lf-synthesis", 2]
        ])
        expect(dataOf(events, "KeyStepsIdentified")[0]).toMatchObject({ method: "model", modelCallIds: [expect.any(String)] })
        expect(
          dataOf(events, "LabelFunctionInferred").map((l) => [l.inference.method, l.inference.attempts, l.inference.modelCallIds.length])
        ).toEqual([
          ["model", 1, 1],
          ["model", 1, 1]
        ])
      }))

  test("an LF answer that fails validation five times falls back to the embedded synthesizer, and says so", () =>
    spec(labelInference)
      .given(withModel)
      .when(inferJob(openBoardDemo))
      .answering({ "key-steps": ["[1, 2]"], "lf-synthesis": [...Array(5).fill(code("-1")), validStatus] })
      .then((events) => {
        const [first, second] = dataOf(events, "LabelFunctionInferred")
        expect(first!.inference).toMatchObject({ method: "embedded", evidence: "state", attempts: 6 })
        expect(first!.inference.modelCallIds).toHaveLength(5)
        expect(second!.inference.method).toBe("model")
      }))

  test("a key-step answer that names only the closing step leaves the embedded choice standing", () =>
    spec(labelInference)
      .given(withModel)
      .when(inferJob(openBoardDemo))
      .answering({ "key-steps": ["[2]"], "lf-synthesis": [validUrl, validStatus] })
      .then((events) => {
        const [keys] = dataOf(events, "KeyStepsIdentified")
        expect(keys).toMatchObject({
          method: "embedded",
          keySteps: [
            { stepIndex: 0, reason: "reaches-final-page" },
            { stepIndex: 1, reason: "final-status" }
          ]
        })
        expect(keys!.modelCallIds).toHaveLength(1)
      }))

  const failures: ReadonlyArray<{ name: string; answers: ModelScript; error: string }> = [
    {
      name: "a model call that failed when recorded fails the job with the call named",
      answers: { "key-steps": [null] },
      error: "model call 0 of"
    },
    {
      name: "a model call the log has no record of fails the job: nothing is made up",
      answers: {},
      error: "no ModelCalled recorded for call 0"
    }
  ]
  for (const f of failures) {
    test(f.name, () =>
      spec(labelInference)
        .given(withModel)
        .when(inferJob(openBoardDemo))
        .answering(f.answers)
        .then((events) => {
          expect(typesOf(events)).toEqual(["JobCompleted"])
          expect(dataOf(events, "JobCompleted")[0]).toMatchObject({ outcome: "failed", error: expect.stringContaining(f.error) })
        })
    )
  }
})

describe("label inference with a model: a caret key it chooses (synthesis 5)", () => {
  // Click the body, move to its end, append a line: the caret key only said where the line went.
  const ORIGINAL = "Line 1 Line 2"
  const editor = (value: string) => elements("/wiki/edit", ["textbox", "Body", { value }], ["button", "Save"])
  const body = { role: "textbox", name: "Body", elementId: null, text: null }
  const editDemo = demoIngested({
    demoId: "wiki-append-script",
    taskId: openBoard.taskId,
    steps: [
      demoStep({ kind: "click", target: body }, "/wiki/edit", "/wiki/edit", editor(ORIGINAL)),
      demoStep({ kind: "key", key: "Control+End" }, "/wiki/edit", "/wiki/edit", editor(ORIGINAL)),
      demoStep({ kind: "type", target: body, text: "\nLine 3", mode: "insert" }, "/wiki/edit", "/wiki/edit", editor(`${ORIGINAL} Line 3`)),
      demoStep(complete, "/wiki/edit", "/wiki/edit", editor(`${ORIGINAL} Line 3`))
    ]
  })
  const answers = (...lfs: ReadonlyArray<string>): ModelScript => ({ "key-steps": ["[2, 3, 4]"], "lf-synthesis": lfs.map(code) })
  const cases: ReadonlyArray<readonly [synthesis: string, answers: ModelScript, keySteps: ReadonlyArray<number>]> = [
    ["4", answers(`validateKey(t, "Control+End")`, `validateType(t, "Line 3", "Body")`, `validateStatus(t, "complete")`), [1, 2, 3]],
    ["5", answers(`validateType(t, "Line 3", "Body")`, `validateStatus(t, "complete")`), [2, 3]]
  ]
  for (const [synthesis, script, keySteps] of cases) {
    test(`synthesis ${synthesis}: the model's choice of steps 2, 3 and 4 becomes key steps ${JSON.stringify(keySteps)}`, () =>
      spec(labelInference)
        .given([...tasks, editDemo, infer({ model: "spec-model", synthesis })])
        .when(inferJob(editDemo))
        .answering(script)
        .then((events) => {
          expect(dataOf(events, "KeyStepsIdentified")[0]!.keySteps.map((k) => k.stepIndex)).toEqual([...keySteps])
          expect(dataOf(events, "LabelFunctionInferred")).toHaveLength(keySteps.length)
        }))
  }
})
