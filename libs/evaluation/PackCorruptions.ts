/**
 * The hard-negative suite of an app pack (`bun core eval corruptions --app <dir>`). EVALUATION
 * CODE. The bundled sites' suite (CorruptionSet.ts) over a pack's step files: every train task's
 * demo and alternatives (`demos/alt/`) that the pack's `evaluate` passes are the sources; each is
 * corrupted the ways that look most like success (@core/domain Corruption.ts over step-file
 * steps), and every corruption is played on a fresh instance and judged by `evaluate`. A step
 * the corruption left without its target (the field a dropped button would have opened) ends
 * the episode there, and what the app holds then is judged.
 *
 * A pack's tasks have no parameters, so "another item" is another train task: the next one
 * sharing a tag (the same kind of change to another record), else the next one.
 *
 * @example
 * const set = yield* buildPackCorruptionSet("packs/myapp", secrets, { instances: ["t03-create-log"] })
 * set.trajectories[1] // { id: "t03-create-log/drop-key-step/demo#2", kind: "drop-key-step", checker: false, … }
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { loadPack, packDigest } from "@core/apps"
import type { PackTask, SecretRule } from "@core/apps"
import { describeStep, loadStepFile, stepOfAction } from "@core/demos"
import type { Step } from "@core/demos"
import { Corruption as C } from "@core/domain"
import { digest } from "@core/events"
import { alterAnswer, alterText, seededRng } from "@core/sites/solutions"
import { SUITE_VERSION } from "./CorruptionEval.ts"
import { shareOut } from "./CorruptionSet.ts"
import type { SetAside, SuiteKind, SuiteOptions, TaskPart } from "./CorruptionSet.ts"
import { EvalError } from "./EvalError.ts"
import type { EvalTask, EvalTrajectory } from "./LabelEvalSet.ts"
import { openPackPlayer } from "./PackPlayer.ts"
import type { PackLane, PackPlayed } from "./PackPlayer.ts"

/** A pack's suite takes the sites' options; `instances` are its train task ids. */
export type PackCorruptionOptions = SuiteOptions

const pressed = (s: Step): boolean => (s.kind === "click" || s.kind === "long_press") && s.target.role !== "link"

/** A step file's step: a control pressed again toggles back, a typed field is cleared, a move is gone back from. */
export const stepFileForm: C.StepForm<Step> = {
  ends: (s) => s.kind === "status" || s.kind === "answer",
  // A key press commits what was typed (Enter in an autocomplete) as a button would.
  changes: (s) => s.kind === "type" || s.kind === "select" || s.kind === "key" || pressed(s),
  moves: (s) => s.kind === "click" || s.kind === "long_press" || s.kind === "navigate",
  typed: (s) => s.kind === "type" && s.submit !== true && s.secretEnv === undefined,
  undo: (s) =>
    pressed(s)
      ? s
      : s.kind === "type" && s.secretEnv === undefined
        ? { ...s, text: "", submit: false }
        : s.kind === "click" || s.kind === "navigate"
          ? { kind: "back" }
          : null,
  describe: describeStep
}

/** One typed value changed (the last unsubmitted one, else the last), else the answer one off, else the other status. */
export const otherValue = (steps: ReadonlyArray<Step>): C.Corruption<Step> | null => {
  const typedAt = (test: (s: Step) => boolean) => steps.findLastIndex((s) => s.kind === "type" && s.secretEnv === undefined && test(s))
  const at = [typedAt((s) => stepFileForm.typed(s) && s.kind === "type" && (s.text ?? "") !== ""), typedAt(() => true)].find((i) => i >= 0)
  const replace = (i: number, by: Step, note: string) => ({
    steps: steps.map((s, j) => (j === i ? by : s)),
    note: `step ${i + 1}: ${note}`,
    signature: "value"
  })
  if (at !== undefined) {
    const s = steps[at] as Extract<Step, { kind: "type" }>
    const text = alterText(s.text === undefined || s.text === "" ? "x" : s.text)
    return replace(at, { ...s, text }, `typed ${JSON.stringify(text)} instead of ${JSON.stringify(s.text ?? "")}`)
  }
  const end = steps.at(-1)
  const last = steps.length - 1
  if (end?.kind === "answer") return replace(last, { kind: "answer", text: alterAnswer(end.text) }, "answered one off (or another text)")
  if (end?.kind === "status")
    return replace(last, { kind: "status", status: end.status === "complete" ? "infeasible" : "complete" }, "the other status")
  return null
}

/** Another value the source's last page shows, as the answer. */
const nearMiss = (steps: ReadonlyArray<Step>, played: PackPlayed, draw: number): C.Corruption<Step> | string => {
  const end = steps.at(-1)
  if (end?.kind !== "answer") return "the task has no answer"
  const other = played.aria === null ? null : C.nearMissOn(played.aria, end.text, draw)
  if (other === null) return "the last page shows no other value"
  return {
    steps: [...steps.slice(0, -1), { kind: "answer", text: other }],
    note: `answered ${JSON.stringify(other)}`,
    signature: "near-miss"
  }
}

/** The task the other-item and side-effect corruptions use: the next train task sharing a tag, else the next. */
const otherTaskOf = (task: PackTask, all: ReadonlyArray<PackTask>): PackTask | undefined => {
  const after = [...all.slice(all.indexOf(task) + 1), ...all.slice(0, all.indexOf(task))].filter((t) => t.id !== task.id)
  return after.find((t) => t.tags.some((g) => task.tags.includes(g))) ?? after[0]
}

/** Every corruption of one source, in a fixed order; where a type does not apply, the reason instead. */
const corruptionsOf = (
  steps: ReadonlyArray<Step>,
  played: PackPlayed,
  other: { readonly task: PackTask; readonly steps: ReadonlyArray<Step> } | undefined,
  withOtherItem: boolean,
  draw: number
): ReadonlyArray<readonly [C.CorruptionType, C.Corruption<Step> | string]> => {
  const or = (c: C.Corruption<Step> | null, why: string) => c ?? why
  const each = (type: C.CorruptionType, cs: ReadonlyArray<C.Corruption<Step>>) =>
    cs.length === 0 ? [[type, "no key step"] as const] : cs.map((c) => [type, c] as const)
  const item: C.Corruption<Step> | string =
    other === undefined
      ? "no other train task with a demo"
      : !withOtherItem
        ? "made once per task, from the demo"
        : { steps: other.steps, note: `${other.task.id}'s demo`, signature: `item:${other.task.id}` }
  return [
    ...each("drop-key-step", C.dropKeySteps(stepFileForm, steps)),
    ...each("duplicate-key-step", C.duplicateKeySteps(stepFileForm, steps)),
    ["swap-steps", or(C.swapSteps(stepFileForm, steps), "no step to swap the last key step with")],
    ["other-item", item],
    ["other-value", or(otherValue(steps), "no value to change")],
    ["undo-after", or(C.undoAfter(stepFileForm, steps), "no key step with a known way back")],
    ["near-miss-answer", nearMiss(steps, played, draw)],
    ["stop-early", or(C.stopEarly(stepFileForm, steps), "nothing before the end")],
    [
      "side-effect",
      other === undefined
        ? "no other train task with a demo"
        : or(
            C.sideEffect(stepFileForm, steps, { kind: "navigate", url: other.task.start }, other.steps, other.task.id),
            `${other.task.id}'s demo changes nothing`
          )
    ]
  ]
}

interface Source {
  readonly name: string
  readonly steps: ReadonlyArray<Step>
  /** False for the demo played for its label functions only, when a run's passes are the sources. */
  readonly corrupt: boolean
}

/** The sources of a task: its demo, then its alternatives unless `demosOnly`; or, with a run, its verified passes. */
const sourcesOf = (dir: string, task: PackTask, options: PackCorruptionOptions, log: (line: string) => void) =>
  Effect.gen(function* () {
    const demo = (yield* loadStepFile(resolve(dir, task.steps!))).steps
    const passes = options.runPasses?.filter((p) => p.taskId === task.id)
    if (passes !== undefined)
      return [
        { name: "demo", steps: demo, corrupt: false },
        ...passes.flatMap((p): ReadonlyArray<Source> => {
          const steps = p.actions.map(stepOfAction)
          if (steps.every((s) => s !== null)) return [{ name: `run:${p.trajectoryId}`, steps: steps as Array<Step>, corrupt: true }]
          log(`${task.id}/run:${p.trajectoryId}: an action no step file can say; not corrupted`)
          return []
        })
      ]
    const alts: Array<Source> = []
    for (const name of options.demosOnly === true ? [] : ["other-path", "other-method"]) {
      const file = resolve(dir, "demos", "alt", `${task.id}${name === "other-method" ? ".method" : ""}.steps.json`)
      if (existsSync(file)) alts.push({ name, steps: (yield* loadStepFile(file)).steps, corrupt: true })
    }
    return [{ name: "demo", steps: demo, corrupt: true }, ...alts]
  })

const corruptTask = (
  lane: PackLane,
  dir: string,
  suite: string,
  task: PackTask,
  all: ReadonlyArray<PackTask>,
  options: PackCorruptionOptions,
  log: (line: string) => void
) =>
  Effect.gen(function* () {
    const part = { evalTask: null as EvalTask | null, trajectories: [] as Array<EvalTrajectory<SuiteKind>> }
    const discarded: Array<SetAside> = []
    const notBuilt: Array<SetAside> = []
    const counts = { played: 0, passing: 0 }
    const otherTask = otherTaskOf(task, all)
    const other =
      otherTask === undefined ? undefined : { task: otherTask, steps: (yield* loadStepFile(resolve(dir, otherTask.steps!))).steps }
    const sources = yield* sourcesOf(dir, task, options, log)
    const first = sources.find((x) => x.corrupt)
    for (const source of sources) {
      const steps = source.steps
      const played = yield* lane.play(task, steps, task.id, { untilProblem: true })
      if (source.corrupt) counts.played++
      if (source.name === "demo")
        part.evalTask = {
          taskId: task.id,
          suite,
          template: task.id,
          instruction: task.instruction,
          family: "demo",
          demo: played.trajectory,
          demoSteps: played.steps,
          demoChecker: played.pass,
          demoNote: "the task's step file"
        }
      if (!source.corrupt) continue
      if (!played.pass || played.stopped !== null) {
        log(
          `${task.id}/${source.name}: the source itself ${played.stopped === null ? "does not pass evaluate" : `stopped at ${played.stopped}`}; not corrupted`
        )
        continue
      }
      counts.passing++
      const base = { taskId: task.id, family: source.name, partial: false }
      part.trajectories.push({
        ...base,
        id: `${task.id}/source/${source.name}`,
        kind: "source",
        trajectory: played.trajectory,
        checker: true,
        note: "evaluate passes it"
      })
      const draw = seededRng(options.seed ?? "core-corruptions-v1", task.id, source.name, "near-miss-answer").float()
      const plan = C.planCorruptions(task.id, source.name, corruptionsOf(steps, played, other, source === first, draw))
      notBuilt.push(...plan.setAside)
      for (const { id, kind, corruption: c } of plan.play) {
        const judged = yield* lane.play(task, c.steps, task.id, { untilProblem: true })
        const why = [
          c.note,
          ...(judged.stopped === null ? [] : [`stopped at ${judged.stopped}`]),
          `evaluate ${judged.pass ? "passes" : "fails"}`
        ].join("; ")
        if (judged.pass) discarded.push({ id, kind, reason: why })
        part.trajectories.push({
          ...base,
          id,
          kind,
          trajectory: judged.trajectory,
          checker: judged.pass,
          note: why,
          partial: judged.stopped !== null
        })
      }
    }
    return { ...part, discarded, notBuilt, ...counts } satisfies TaskPart
  })

/** Builds a pack's suite; see the module comment. Tasks are shared out over lanes and put back in task order. */
export const buildPackCorruptionSet = (packDir: string, secrets: SecretRule, options: PackCorruptionOptions = {}) =>
  Effect.gen(function* () {
    const log = options.progress ?? (() => undefined)
    const parallel = options.parallel ?? 2
    const pack = yield* loadPack(packDir)
    const all = pack.tasks.filter((t) => t.split === "train" && t.steps !== null)
    const unknown = (options.instances ?? []).filter((id) => !all.some((t) => t.id === id))
    if (unknown.length > 0)
      return yield* new EvalError({
        message: `${unknown.join(", ")}: not a train task with a step file of ${pack.config.name} (those: ${all.map((t) => t.id).join(", ")})`
      })
    const chosen = all.filter(
      (t) =>
        (options.instances === undefined || options.instances.includes(t.id)) &&
        (options.runPasses === undefined || options.runPasses.some((p) => p.taskId === t.id))
    )
    const { lanes: players } = yield* openPackPlayer(packDir, secrets, Math.min(parallel, pack.config.pool, chosen.length))
    return yield* shareOut(players, chosen, (lane, task) => corruptTask(lane, pack.dir, pack.config.name, task, all, options, log), log)
  }).pipe(Effect.scoped)

/** The cache key of a pack's suite: the suite's construction, the options (a run and its passes), and every file of the pack. */
export const packCorruptionSetKey = (
  packDir: string,
  options: Pick<PackCorruptionOptions, "instances" | "demosOnly"> & {
    readonly run?: { readonly runId: string; readonly passes: ReadonlyArray<string> }
  }
) =>
  Effect.gen(function* () {
    const pack = yield* loadPack(packDir)
    const files = yield* packDigest(pack)
    return digest({
      SUITE_VERSION,
      app: pack.config.name,
      files,
      instances: options.instances ?? null,
      demosOnly: options.demosOnly === true,
      run: options.run ?? null
    }).slice(0, 16)
  })
