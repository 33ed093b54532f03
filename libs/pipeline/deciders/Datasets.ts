/**
 * The dataset decider (docs/method.md, "Datasets"): round 0's dataset is the run's demos as sft
 * records; for every later round, when it is complete and extrapolated, its verified
 * trajectories become records (libs/domain Datasets) — sft from passing trajectories and
 * from the pseudo-demos of tasks extrapolated in the round (with the new instruction),
 * dpo pairs of a pass and a non-pass of one task from a shared state, a step-reward
 * rollout record per trajectory — then the round's `DatasetSealed`. Records already
 * emitted by the run (same content, same id) are not emitted again. The next round starts
 * on the seal (Rounds), so a trainer following the log has a round's data before the
 * round after it is played.
 *
 * Everything goes to `run.<runId>.dataset.<round>`, the subject a trainer follows
 * (`core.run.*.dataset.*`); the driver splits it into commits under the message limit.
 *
 * @example
 * const decisions = yield* datasets.decide(state, roundExtrapolated) // DatasetRecordEmitted…, DatasetSealed
 */
import { Effect } from "effect"
import { BlobStore } from "@core/blobstore"
import { creditedDpoRecords, dpoRecord, prunePseudoDemo, rolloutRecord, sealOf, sftRecords, sitePath } from "@core/domain"
import type { Credit, DatasetRecord, RecordStep, RecordTrajectory, SftOrigin } from "@core/domain"
import { policyView } from "@core/environment"
import type { ElementInfo } from "@core/environment"
import { DatasetRecordEmitted, DatasetSealed, runStream } from "@core/events"
import type { CoreEvent, Observation } from "@core/events"
import { decision, defineDecider } from "@core/engine"
import { evolveRun, initialRunState } from "../RunState.ts"
import type { DemoData, ExtrapolatedInfo, RunState, TrajectoryData } from "../RunState.ts"
import { extrapolationSteps, planOf, pseudoDemoSteps } from "../PseudoDemos.ts"
import type { PseudoDemoStep } from "../PseudoDemos.ts"

/** Preference pairs per passing trajectory: enough contrast, without one pass dominating a task. */
export const DPO_PER_PASS = 3

const decoder = new TextDecoder()

/** The policy view of each distinct elements blob, read once. */
const viewsOf = (observations: ReadonlyArray<Observation>) =>
  Effect.gen(function* () {
    const blobs = yield* BlobStore
    const views = new Map<string, string>()
    for (const o of observations) {
      if (o.elements === null || views.has(o.elements)) continue
      const bytes = yield* blobs.get(o.elements)
      let elements: ReadonlyArray<ElementInfo> = []
      try {
        const parsed = JSON.parse(decoder.decode(bytes)) as { elements?: unknown }
        if (Array.isArray(parsed.elements)) elements = parsed.elements as ReadonlyArray<ElementInfo>
      } catch {
        // An unreadable list shows as an empty page: the record still says what was done.
      }
      views.set(o.elements, policyView({ url: o.url, app: o.app, title: o.title, error: null }, elements).text)
    }
    return views
  })

/** Steps as records show them: each action with the page it was taken on (the screen before it). */
const recordSteps = (steps: ReadonlyArray<PseudoDemoStep>, hashRouting: boolean) =>
  Effect.gen(function* () {
    const views = yield* viewsOf(steps.map((s) => s.before))
    return steps.map(
      (s): RecordStep => ({
        // Path and query only: the sites' origin (its port) changes from run to run, the example does not.
        url: sitePath(s.before.url, hashRouting),
        title: s.before.title,
        view: s.before.elements === null ? "" : (views.get(s.before.elements) ?? ""),
        screenshot: s.before.screenshot,
        action: s.action,
        error: s.after.error,
        screen: s.before.elements,
        marks: s.before.marks ?? null
      })
    )
  })

/**
 * A recorded trajectory (its first `steps` steps) as records show it: each action with the
 * page it was taken on. `hashRouting` is the run's: its pages' URLs keep their fragment.
 */
export const recordTrajectory = (t: TrajectoryData, instruction: string, taskId = t.taskId, steps = t.steps.length, hashRouting = false) =>
  Effect.map(
    recordSteps(
      pseudoDemoSteps(t, { stepIndices: Array.from({ length: Math.min(steps, t.steps.length) }, (_, i) => i), addsClosing: false }),
      hashRouting
    ),
    (out) => ({ trajectoryId: t.trajectoryId, taskId, instruction, steps: out }) satisfies RecordTrajectory
  )

/** An extrapolated task's pseudo-demo as records show it: its kept steps, closed with a claim, under the new instruction. */
const pseudoDemoRecord = (parent: TrajectoryData, x: ExtrapolatedInfo, hashRouting: boolean) =>
  Effect.map(
    recordSteps(pseudoDemoSteps(parent, planOf(x)), hashRouting),
    (out) => ({ trajectoryId: parent.trajectoryId, taskId: x.taskId, instruction: x.instruction, steps: out }) satisfies RecordTrajectory
  )

/**
 * Which steps of a passing trajectory a preference pair may prefer (data rules 2): the key
 * steps its verified path matched, and the steps leading to them once loops are pruned as
 * a pseudo-demo's are; each credited with the key step it is or leads to.
 */
const creditsOf = (
  data: TrajectoryData,
  matched: ReadonlyArray<{ readonly nodeId: string; readonly lfId: string; readonly satisfiedAt: number }>
) => {
  const keySteps = matched.map((m) => m.satisfiedAt).sort((a, b) => a - b)
  const plan = prunePseudoDemo(extrapolationSteps(data), { keySteps, end: data.steps.length })
  const credits = new Map<number, Credit>()
  for (const i of plan.stepIndices) {
    const next = [...matched].sort((a, b) => a.satisfiedAt - b.satisfiedAt).find((m) => m.satisfiedAt >= i)
    if (next !== undefined) credits.set(i, { nodeId: next.nodeId, lfId: next.lfId, role: next.satisfiedAt === i ? "key-step" : "leads-to" })
  }
  return credits
}

/**
 * A demo as records show it: each step's page is the one the step before it left; the first
 * step's is the demo's `initial` when it has one (format version 2), else no page — as every
 * demo ingested before it showed, so their records, and the runs that emitted them, stay the same.
 */
export const demoRecordTrajectory = (demo: DemoData, instruction: string) =>
  Effect.gen(function* () {
    const first = demo.steps[0]
    const initial =
      demo.initial === undefined || first === undefined
        ? []
        : [{ ...demo.initial, url: first.urlBefore, app: first.appBefore, title: null, truncated: false, error: null }]
    const views = yield* viewsOf([
      ...initial,
      ...demo.steps.map((st) => ({ ...st.observation, url: st.urlAfter, app: st.appAfter, title: null, truncated: false, error: null }))
    ])
    const steps: Array<RecordStep> = demo.steps.map((st, k) => {
      const before = k === 0 ? (demo.initial ?? null) : demo.steps[k - 1]!.observation
      return {
        url: sitePath(st.urlBefore),
        title: null,
        view: before?.elements == null ? "" : (views.get(before.elements) ?? ""),
        screenshot: before?.screenshot ?? null,
        action: st.action,
        error: null
      }
    })
    return { trajectoryId: `demo:${demo.demoId}`, taskId: demo.taskId, instruction, steps } satisfies RecordTrajectory
  })

/** Under the data rules of version 3 an sft record says where its steps came from; earlier runs' records do not. */
const originOf = (s: RunState, origin: SftOrigin): SftOrigin | undefined => (s.rules.data.sftOrigin ? origin : undefined)

/** Round 0: the demos of the run's tasks (those its graphs start from), as sft records — what behaviour cloning learns. */
const demoRecords = (s: RunState) =>
  Effect.gen(function* () {
    const records: Array<DatasetRecord> = []
    for (const taskId of s.config!.tasks) {
      const path = s.graphs.get(taskId)?.paths.find((p) => p.source.kind === "demo")
      const demo = path === undefined ? undefined : s.demos.get(path.source.id)
      if (demo !== undefined)
        records.push(
          ...sftRecords(
            yield* demoRecordTrajectory(demo, s.instructions.get(taskId) ?? ""),
            originOf(s, { kind: "demo", demo_id: demo.demoId })
          )
        )
    }
    return records
  })

const roundRecords = (s: RunState, round: number) =>
  Effect.gen(function* () {
    if (round === 0) return dedupe(s, yield* demoRecords(s))
    const records: Array<DatasetRecord> = []
    const byTask = new Map<string, { pass: Array<RecordTrajectory>; other: Array<RecordTrajectory> }>()
    const ids = [...s.trajectories.keys()].filter((id) => s.trajectories.get(id)!.round === round).sort()
    for (const id of ids) {
      const data = s.trajectories.get(id)!
      const verdict = s.verdicts.get(id)
      const evidence = s.evidence.get(id)
      if (verdict === undefined || verdict.verdict === "infra-error" || data.steps.length === 0) continue
      const t = yield* recordTrajectory(data, s.instructions.get(data.taskId) ?? "", data.taskId, data.steps.length, s.config!.hashRouting)
      if (verdict.verdict === "pass") records.push(...sftRecords(t, originOf(s, { kind: "verified", trajectory_id: id })))
      records.push(rolloutRecord(t, verdict.verdict, evidence ?? []))
      const group = byTask.get(data.taskId) ?? { pass: [], other: [] }
      ;(verdict.verdict === "pass" ? group.pass : group.other).push(t)
      byTask.set(data.taskId, group)
    }
    for (const taskId of [...byTask.keys()].sort()) {
      const { pass, other } = byTask.get(taskId)!
      for (const chosen of pass) {
        if (s.rules.data.creditsPreferences) {
          const data = s.trajectories.get(chosen.trajectoryId)!
          records.push(
            ...creditedDpoRecords(chosen, creditsOf(data, s.verdicts.get(chosen.trajectoryId)?.matched ?? []), other, DPO_PER_PASS)
          )
          continue
        }
        let made = 0
        for (const rejected of other) {
          if (made >= DPO_PER_PASS) break
          const r = dpoRecord(chosen, rejected)
          if (r !== null) {
            records.push(r)
            made++
          }
        }
      }
    }
    // Each task extrapolated from this round's trajectories: its pseudo-demo, under its own instruction.
    for (const x of s.extrapolated.values()) {
      const data = s.trajectories.get(x.pseudoDemoTrajectoryId)
      if (x.round !== round || data === undefined) continue
      const origin = originOf(s, {
        kind: "pseudo-demo",
        parent_trajectory: x.pseudoDemoTrajectoryId,
        parent_task: x.parentTaskId,
        generator: x.generator
      })
      records.push(...sftRecords(yield* pseudoDemoRecord(data, x, s.config!.hashRouting), origin))
    }
    return dedupe(s, records)
  })

/** A record already emitted by the run (same content, same id) is not emitted again. */
const dedupe = (s: RunState, records: ReadonlyArray<DatasetRecord>): ReadonlyArray<DatasetRecord> => {
  const seen = new Set(s.records)
  return records.filter((r) => (seen.has(r.recordId) ? false : (seen.add(r.recordId), true)))
}

export const datasets = defineDecider({
  name: "datasets",
  // Decides by the run's data rules: 2 adds credited preference pairs and pruned pseudo-demos, 3 the sft records' origin.
  version: "3",
  handles: ["RoundExtrapolated"],
  emits: ["DatasetRecordEmitted", "DatasetSealed"],
  initial: initialRunState,
  evolve: evolveRun,
  decide: (s: RunState, e: CoreEvent) =>
    Effect.gen(function* () {
      if (e.type !== "RoundExtrapolated" || s.config === null || e.runId === null) return []
      const round = e.data.round
      const stream = runStream(e.runId, "dataset", String(round))
      const records = yield* roundRecords(s, round)
      return [
        ...records.map((r, ordinal) =>
          decision(DatasetRecordEmitted, {
            stream,
            causationId: e.id,
            ordinal,
            data: {
              recordId: r.recordId,
              round,
              format: r.format,
              trajectoryIds: [...r.trajectoryIds],
              taskId: r.taskId,
              body: r.body as never,
              blobs: [...r.blobs]
            }
          })
        ),
        decision(DatasetSealed, { stream, causationId: e.id, ordinal: 0, data: { round, ...sealOf(records) } })
      ]
    })
})
