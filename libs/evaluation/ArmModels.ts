/**
 * EVALUATION: the model an arm plays, rebuilt from a CORE run's log. An arm is a policy as a
 * run had trained it through a sealed round (round 0 = the demos alone: behaviour cloning):
 *
 * - `embedded`: the retrieval policy trained on the sft records of rounds 0..N
 *   (`retrievalModelOf`), read by the retrieval version the run recorded;
 * - `learned`: the learner trained on the dataset records of rounds 0..N in log order, seeded
 *   from the run's seed and N (`trainOnRecords`, `learnerSeed`) — what a learned run trains
 *   after round N (`learnedModelOf`, for such a run) — played by the exploration version the
 *   run recorded. Any run's records train it, so the arms of a report are the same functions
 *   over each run's data.
 *
 * Every arm calls the same training functions with the learner's fixed hyperparameters: no
 * arm is tuned on its own. The learned arm trains only on the records `trainingRecords`
 * (libs/domain Contamination.ts) lets through against the held-out tasks it is judged on:
 * none of a held-out task, none of a generated task the guard refuses. When it leaves one out
 * the arm is not the run's own model, and says how many it left out.
 *
 * @example
 * const run = sealedRun(events, 2)                   // or why there is none
 * const { arm, excluded } = armAt(run, "learned", heldOut.map(heldOutTaskOf))
 * evaluatePolicy({ …, arm }, layer)
 */
import { trainingRecords } from "@core/domain"
import type { ExplorationVersion, HeldOutTask, RetrievalVersion, TaskLike } from "@core/domain"
import { sha256 } from "@core/events"
import type { CoreEvent, DataOf, DatasetRecordEmitted } from "@core/events"
import { learnedModelJson, learnerSeed, trainOnRecords } from "@core/learner"
import type { LearnedModel } from "@core/learner"
import { evolveRun, initialRunState, learnedModelOf, learnerOf, retrievalModelOf } from "@core/pipeline"
import type { LearnerVersion } from "@core/domain"
import type { RunState, RunTask } from "@core/pipeline"
import { modelDigestInput } from "@core/policy"
import type { RetrievalModel } from "@core/policy"

/** The policies an evaluation can rebuild from a run's log (`eval --policy`). */
export const EVAL_POLICIES = ["embedded", "learned"] as const
export type EvalPolicy = (typeof EVAL_POLICIES)[number]

/** What an arm's episodes play: a policy, its model (null: it only explores) and the versions it is read by. */
export type ArmModel =
  | { readonly kind: "embedded"; readonly model: RetrievalModel | null; readonly retrieval: RetrievalVersion }
  | { readonly kind: "learned"; readonly model: LearnedModel | null; readonly exploration: ExplorationVersion }

/** A run's log and state, at a round whose dataset is sealed. */
export interface SealedRun {
  readonly events: ReadonlyArray<CoreEvent>
  readonly state: RunState
  readonly round: number
  /** The sites of the run's own tasks: where its held-out tasks are. */
  readonly sites: ReadonlySet<string>
}

export interface TrainedArm {
  readonly arm: ArmModel
  readonly round: number
  /** What the model learned from: sft examples (embedded) or training states (learned). */
  readonly examples: number
  /** Dataset records it was trained on (learned); the sft records (embedded). */
  readonly records: number
  /** Records left out as contaminated (learned only; 0 for embedded). */
  readonly excluded: number
}

/** The run through `round` (default its last sealed one), or why it cannot be evaluated there. */
export const sealedRun = (events: ReadonlyArray<CoreEvent>, round: number | null): SealedRun | string => {
  const state: RunState = events.reduce(evolveRun, initialRunState)
  if (state.config === null) return "it is not a CORE run (bun core run)"
  const sealed = [...state.seals.keys()].sort((a, b) => a - b)
  // Default: the last round whose data it learned.
  const at = round ?? sealed.at(-1) ?? 0
  if (!state.seals.has(at)) return `its round ${at} dataset is not sealed (sealed: ${sealed.join(", ") || "none"})`
  const sites = new Set(state.config.tasks.flatMap((t) => state.tasks.get(t)?.site ?? []))
  return { events, state, round: at, sites }
}

/** A held-out task as the contamination guard reads it. */
export const heldOutTaskOf = (t: RunTask): HeldOutTask => {
  const parameters: Record<string, string | number> = {}
  for (const [k, v] of Object.entries(t.registration.template?.parameters ?? {}))
    if (typeof v === "string" || typeof v === "number") parameters[k] = v
  return { id: t.id, instruction: t.registration.instruction, templateId: t.registration.template?.id ?? null, parameters }
}

type Record_ = DataOf<typeof DatasetRecordEmitted>

/** The dataset records the run emitted for rounds ≤ `round`, in log order: what its learner trains on after that round. */
export const recordsThrough = (events: ReadonlyArray<CoreEvent>, round: number): ReadonlyArray<Record_> =>
  events.flatMap((e) => (e.type === "DatasetRecordEmitted" && e.data.round <= round ? [e.data] : []))

/** The tasks the run generated (extrapolation), as the guard reads them: its own tasks are the train split. */
const generatedTasks = (events: ReadonlyArray<CoreEvent>): ReadonlyMap<string, TaskLike> => {
  const out = new Map<string, TaskLike>()
  for (const e of events) {
    if (e.type !== "TaskExtrapolated") continue
    const parameters: Record<string, string | number> = {}
    for (const [k, v] of Object.entries(e.data.template?.parameters ?? {}))
      if (typeof v === "string" || typeof v === "number") parameters[k] = v
    out.set(e.data.newTaskId, { instruction: e.data.instruction, templateId: e.data.template?.id ?? null, parameters })
  }
  return out
}

/** The run's seed, as its RunStarted recorded it: the learner's seed derives from it. */
const runSeedOf = (events: ReadonlyArray<CoreEvent>): string => {
  for (const e of events) if (e.type === "RunStarted") return e.data.seed
  return ""
}

/** The records a learned arm through `round` trains on, and those it leaves out against `heldOut`. */
export const learnedRecords = (run: SealedRun, round: number, heldOut: ReadonlyArray<HeldOutTask>) => {
  const generated = generatedTasks(run.events)
  return trainingRecords(recordsThrough(run.events, round), heldOut, (id) => generated.get(id))
}

const learnedModels = new Map<string, LearnedModel>()

/** The learner on these records with the run's seed for `round`: built once per seed and record list (their order counts). */
const learnedModel = (records: ReadonlyArray<Record_>, seed: string, learner: LearnerVersion): LearnedModel => {
  const key = sha256(JSON.stringify([seed, learner, records.map((r) => r.recordId)]))
  const known = learnedModels.get(key)
  if (known !== undefined) return known
  const model = trainOnRecords(records, seed, learner)
  // A report holds a handful of models per seed: keep the last few.
  if (learnedModels.size >= 16) learnedModels.delete(learnedModels.keys().next().value!)
  learnedModels.set(key, model)
  return model
}

/** The arm a run had trained through its sealed round, by `policy`; the learned one leaves out what `heldOut` forbids. */
export const armAt = (run: SealedRun, policy: EvalPolicy, heldOut: ReadonlyArray<HeldOutTask>): TrainedArm => {
  const { state, round } = run
  if (policy === "embedded") {
    const sft = state.examples.filter((x) => x.round <= round).length
    return {
      arm: { kind: "embedded", model: retrievalModelOf(state, round), retrieval: state.config!.retrieval },
      round,
      examples: sft,
      records: sft,
      excluded: 0
    }
  }
  const { kept, excluded } = learnedRecords(run, round, heldOut)
  // A learned run's own model when nothing is left out; for any other run, or with records left out, the same functions on what is kept.
  const own = excluded.length === 0 ? learnedModelOf(state, round) : null
  const model = own ?? learnedModel(kept, learnerSeed(runSeedOf(run.events), round), learnerOf(state.config!))
  return {
    arm: { kind: "learned", model, exploration: state.config!.exploration },
    round,
    examples: model.examples,
    records: kept.length,
    excluded: excluded.length
  }
}

/** What tells two arms apart: the policy, the version it is read by and the model's bytes. */
export const armDigest = (arm: ArmModel): string =>
  arm.kind === "embedded"
    ? sha256(`${arm.retrieval}:${arm.model === null ? "null" : modelDigestInput(arm.model)}`)
    : sha256(`learned:${arm.exploration}:${arm.model === null ? "null" : learnedModelJson(arm.model)}`)

/** The logs of one report seed's three runs: CORE, and its two ablations. */
export interface SeedLogs {
  readonly full: ReadonlyArray<CoreEvent>
  readonly noExpansion: ReadonlyArray<CoreEvent>
  readonly noExtrapolation: ReadonlyArray<CoreEvent>
}

/**
 * The arms the report compares for one seed, in its order: `bc` (the full run at round 0),
 * the full run after each of its `rounds`, then each ablation after its last — every one by
 * `armAt`, with the same policy and held-out tasks. Or why one cannot be built.
 */
export const seedArms = (
  logs: SeedLogs,
  rounds: number,
  policy: EvalPolicy,
  heldOut: ReadonlyArray<HeldOutTask>
): ReadonlyArray<{ readonly label: string; readonly trained: TrainedArm }> | string => {
  const wanted = [
    { label: "bc", events: logs.full, round: 0 },
    ...Array.from({ length: rounds }, (_, k) => ({ label: `round ${k + 1}`, events: logs.full, round: k + 1 })),
    { label: "no-expansion", events: logs.noExpansion, round: rounds },
    { label: "no-extrapolation", events: logs.noExtrapolation, round: rounds }
  ]
  const out: Array<{ readonly label: string; readonly trained: TrainedArm }> = []
  for (const { label, events, round } of wanted) {
    const run = sealedRun(events, round)
    if (typeof run === "string") return `${label}: ${run}`
    out.push({ label, trained: armAt(run, policy, heldOut) })
  }
  return out
}
