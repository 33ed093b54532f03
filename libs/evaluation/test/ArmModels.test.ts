/**
 * Which model an arm plays, read from a recorded run (the two-round replay fixture: four
 * tasks on the three bundled sites, seed `replay-fixture`): the learned arm through round r
 * is the learner trained on exactly the dataset records of rounds ≤ r, in log order, with the
 * run's learner seed for r — behaviour cloning the demos' records alone — and no arm trains
 * on a held-out task or on a generated task the contamination guard refuses.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { contaminationOf, LEARNER } from "@core/domain"
import { readRunLog } from "@core/engine"
import type { CoreEvent } from "@core/events"
import { learnedModelOf } from "@core/pipeline"
import { EmbeddedStore } from "@core/eventstore"
import { learnedModelJson, learnerSeed, trainOnRecords } from "@core/learner"
import { runTaskOf } from "@core/sites/app"
import { loadSuites } from "@core/sites/suites"
import { armAt, heldOutTaskOf, learnedRecords, sealedRun, seedArms } from "../ArmModels.ts"
import type { SealedRun } from "../ArmModels.ts"

const FIXTURE = join(import.meta.dir, "..", "..", "..", "tests", "fixtures", "replay-run-2")
const RUN = "run-mxcb6ggg-b433bd"
const dir = mkdtempSync(join(tmpdir(), "core-arm-models-"))
cpSync(FIXTURE, dir, { recursive: true })
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const { events } = await Effect.runPromise(Effect.provide(readRunLog(RUN), EmbeddedStore.layer({ path: join(dir, "events.db") })))
const records = (round: number) => events.flatMap((e) => (e.type === "DatasetRecordEmitted" && e.data.round <= round ? [e.data] : []))
const sealed = (log: ReadonlyArray<CoreEvent>, round: number): SealedRun => {
  const run = sealedRun(log, round)
  if (typeof run === "string") throw new Error(run)
  return run
}
const learnedJson = (trained: ReturnType<typeof armAt>) => {
  if (trained.arm.kind !== "learned" || trained.arm.model === null) throw new Error("expected a learned model")
  return learnedModelJson(trained.arm.model)
}

describe("the learned arm of a recorded run", () => {
  test("through round r: the learner on exactly the records of rounds ≤ r, in log order, seeded by the run's seed and r", () => {
    const jsons = [0, 1, 2].map((r) => {
      const trained = armAt(sealed(events, r), "learned", [])
      expect(trained.round).toBe(r)
      expect(trained.records).toBe(records(r).length)
      expect(trained.excluded).toBe(0)
      const json = learnedJson(trained)
      expect(json).toBe(learnedModelJson(trainOnRecords(records(r), learnerSeed("replay-fixture", r))))
      return json
    })
    // 34 demo records, then each round's sft, dpo and rollout records
    expect([0, 1, 2].map((r) => records(r).length)).toEqual([34, 108, 194])
    expect(new Set(jsons).size).toBe(3)
    // one more round's records, or the records in another order, train another model
    expect(jsons[0]).not.toBe(learnedModelJson(trainOnRecords(records(1), learnerSeed("replay-fixture", 0))))
    expect(jsons[2]).not.toBe(learnedModelJson(trainOnRecords([...records(2)].reverse(), learnerSeed("replay-fixture", 2))))
  })

  test("of a learned run, it is the run's own model (learnedModelOf), at the run's learner version: the same bytes as from the same records of any run", () => {
    // The fixture's run as a learned run: its RunStarted says so, and its state keeps its records.
    const learnedLog = (learner?: string) =>
      events.map((e) =>
        e.type === "RunStarted"
          ? ({
              ...e,
              data: {
                ...e.data,
                config: { ...e.data.config, "run.policy": "learned", ...(learner === undefined ? {} : { "run.learner": learner }) }
              }
            } as CoreEvent)
          : e
      )
    for (const r of [0, 2]) {
      const run = sealed(learnedLog(LEARNER.current), r)
      expect(run.state.learning).not.toBeNull()
      const trained = armAt(run, "learned", [])
      expect(trained.arm.model).toBe(learnedModelOf(run.state, r))
      // Any other run's arms train at the current version.
      expect(learnedJson(trained)).toBe(learnedJson(armAt(sealed(events, r), "learned", [])))
      // A learned run from before the version was recorded trains as learner 1 did.
      const before = armAt(sealed(learnedLog(), r), "learned", [])
      expect(learnedJson(before)).toBe(learnedModelJson(trainOnRecords(records(r), learnerSeed("replay-fixture", r), "1")))
      expect(before.arm.kind === "learned" && before.arm.model?.version).toBe("learner-v1")
    }
  })

  test("bc (round 0) learns from the demos alone; a round not sealed is said, not guessed", () => {
    expect(records(0).every((r) => r.trajectoryIds.every((t) => t.startsWith("demo:")))).toBe(true)
    expect(records(1).some((r) => !r.trajectoryIds[0]!.startsWith("demo:"))).toBe(true)
    expect(sealedRun(events, 3)).toBe("its round 3 dataset is not sealed (sealed: 0, 1, 2)")
    expect(sealedRun([], 0)).toBe("it is not a CORE run (bun core run)")
    // the default is the last sealed round; the embedded arm reads the same rounds' sft records
    expect((sealedRun(events, null) as SealedRun).round).toBe(2)
    const embedded = armAt(sealed(events, 0), "embedded", [])
    expect(embedded.arm.kind).toBe("embedded")
    expect(embedded.examples).toBe(records(0).filter((r) => r.format === "sft").length)
  })
})

const all = (await Effect.runPromise(loadSuites())).flatMap((s) => s.tasks)

describe("a report seed's arms", () => {
  test("bc is the full run at round 0, then its rounds, then each ablation at its last round: one learner seed per run seed and round", () => {
    // The fixture's run stands for all three of a seed's runs (the report gives them one seed).
    const arms = seedArms({ full: events, noExpansion: events, noExtrapolation: events }, 2, "learned", [])
    if (typeof arms === "string") throw new Error(arms)
    expect(arms.map((a) => a.label)).toEqual(["bc", "round 1", "round 2", "no-expansion", "no-extrapolation"])
    const expected = [0, 1, 2, 2, 2].map((r) => learnedModelJson(trainOnRecords(records(r), learnerSeed("replay-fixture", r))))
    expect(arms.map((a) => learnedJson(a.trained))).toEqual(expected)
    expect(arms.map((a) => a.trained.records)).toEqual([34, 108, 194, 194, 194])
    // the default policy's arms are the retrieval policy's, as before
    const embedded = seedArms({ full: events, noExpansion: events, noExtrapolation: events }, 2, "embedded", [])
    expect(typeof embedded !== "string" && embedded.every((a) => a.trained.arm.kind === "embedded")).toBe(true)
    // a report of more rounds than a run sealed names the arm that is missing
    expect(seedArms({ full: events, noExpansion: events, noExtrapolation: events }, 3, "learned", [])).toBe(
      "round 3: its round 3 dataset is not sealed (sealed: 0, 1, 2)"
    )
  })
})

describe("held-out tasks never reach an arm's training data", () => {
  const run = sealed(events, 2)
  const heldOut = all.filter((t) => t.split === "held-out" && run.sites.has(t.site)).map((t) => heldOutTaskOf(runTaskOf(t)))

  test("on the recorded run, against every held-out task of its sites: nothing to leave out, so the arm is the run's own model", () => {
    expect(heldOut.length).toBeGreaterThan(50)
    const { kept, excluded } = learnedRecords(run, 2, heldOut)
    expect(excluded).toEqual([])
    expect(kept.length).toBe(records(2).length)
    const ids = new Set(heldOut.map((h) => h.id))
    expect(kept.some((r) => ids.has(r.taskId))).toBe(false)
  })

  test("given a held-out task among the run's own and generated tasks near held-out ones, then the arm trains on none of their records", () => {
    // A run given a held-out task to play, and two tasks extrapolation would have made: one a
    // paraphrase of a held-out task the run did not register (an evaluation's own), one clean.
    const own = "forum-top-post-1"
    const asHeldOut = heldOutTaskOf(runTaskOf(all.find((t) => t.id === own)!))
    const unseen = { id: "elsewhere-1", instruction: "Publish a forum post titled Weekly digest on the General board." }
    const template = records(1).find((r) => r.format === "sft" && r.round === 1)!
    const extrapolated = (taskId: string, instruction: string, k: number): ReadonlyArray<CoreEvent> => {
      const emitted = events.find((e) => e.type === "DatasetRecordEmitted")!
      const body = { ...(template.body as object), meta: { ...(template.body as { meta: object }).meta, instruction, task_id: taskId } }
      return [
        {
          ...emitted,
          id: `test-x-${k}`,
          type: "TaskExtrapolated",
          data: {
            newTaskId: taskId,
            instruction,
            generator: "success-augmentation",
            lineage: {
              parentTrajectoryIds: [template.trajectoryIds[0]!],
              parentTaskId: template.taskId,
              generatorVersion: "1",
              promptDigest: null
            },
            pseudoDemoTrajectoryId: template.trajectoryIds[0]!,
            pseudoDemoSteps: 1,
            template: null
          }
        } as unknown as CoreEvent,
        { ...emitted, id: `test-r-${k}`, data: { ...template, recordId: `${"0".repeat(63)}${k}`, taskId, body } } as CoreEvent
      ]
    }
    const near = "Publish a forum post titled Weekly digest on the General board"
    const clean = "Open the General board and read its newest post"
    const at = events.findIndex((e) => e.type === "DatasetSealed" && e.data.round === 1)
    const log = [...events.slice(0, at), ...extrapolated("x-near", near, 1), ...extrapolated("x-clean", clean, 2), ...events.slice(at)]
    const guarded = [...heldOut, asHeldOut, unseen]
    const { kept, excluded } = learnedRecords(sealed(log, 2), 2, guarded)
    const ids = new Set(guarded.map((h) => h.id))
    expect(kept.some((r) => ids.has(r.taskId))).toBe(false)
    expect(kept.filter((r) => r.taskId.startsWith("x-")).map((r) => r.taskId)).toEqual(["x-clean"])
    for (const r of kept.filter((r) => r.taskId.startsWith("x-")))
      expect(contaminationOf({ instruction: (r.body as { meta: { instruction: string } }).meta.instruction }, guarded)).toBeNull()
    expect(excluded.filter((x) => x.record.taskId === own).length).toBe(records(2).filter((r) => r.taskId === own).length)
    expect(excluded.find((x) => x.record.taskId === "x-near")?.why).toMatchObject({ heldOutId: "elsewhere-1", rule: "wording" })
    // what is left out changes the model: the arm trains on what is kept, and says how much it left out
    const trained = armAt(sealed(log, 2), "learned", guarded)
    expect(trained.excluded).toBe(excluded.length)
    expect(learnedJson(trained)).toBe(learnedModelJson(trainOnRecords(kept, learnerSeed("replay-fixture", 2))))
  })
})
