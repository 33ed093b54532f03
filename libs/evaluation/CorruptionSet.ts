/**
 * The hard-negative suite (`bun core eval corruptions`). EVALUATION CODE. For every train
 * instance of the bundled sites, each path family's script (the demo's and the other paths')
 * is played and kept as a source when its checker passes it. Each source is then corrupted in
 * the ways that look most like success (@core/sites/solutions Corrupt.ts: a key step dropped,
 * done twice or swapped, undone after the rest, a stop one step early, a near-miss answer, a
 * side effect on a sibling item, a sibling item, one value changed), and every corrupted script
 * is played in the real environment. A corruption the checker still passes is not a negative:
 * it is discarded and counted, never labelled. The set holds the sources (its positives) and
 * the confirmed negatives, so agreement figures (κ, NPV) have both sides.
 *
 * @example
 * const set = yield* buildCorruptionSet({ instances: ["forum-upvote-1"], progress: console.log })
 * set.trajectories[0] // { id: "forum-upvote-1/drop-key-step/vote", kind: "drop-key-step", checker: false, … }
 */
import { Effect } from "effect"
import {
  dropKeyStep,
  duplicateKeyStep,
  nearMissAnswer,
  scriptsOf,
  seededRng,
  sideEffect,
  SOLVED_SUITES,
  stopEarly,
  swapSteps,
  undoAfter,
  wrongValueVariant
} from "@core/sites/solutions"
import type { Corruption, CorruptionType, Step } from "@core/sites/solutions"
import { loadSuites } from "@core/sites/suites"
import type { SuiteTask } from "@core/sites/suites"
import type { EvalTask, EvalTrajectory, JudgedSet } from "./LabelEvalSet.ts"
import { siblingOf } from "./LabelEvalSet.ts"
import { evalTaskOf, openScriptPlayer } from "./ScriptPlayer.ts"

export interface CorruptionSetOptions {
  /** One suite; all solved suites by default. */
  readonly suite?: string
  /** Only these train instances (task ids). */
  readonly instances?: ReadonlyArray<string>
  /** Only the demo's family as a source (the CI test's slice); every passing family by default. */
  readonly demosOnly?: boolean
  readonly seed?: string
  readonly progress?: (line: string) => void
}

/** A corruption that is no negative, or was never played, and why. */
export interface SetAside {
  readonly id: string
  readonly kind: CorruptionType
  readonly reason: string
}

/** A trajectory of the suite: a source the checker passed (its positives), or a confirmed negative made from one. */
export type SuiteKind = CorruptionType | "source"

export interface CorruptionSet extends JudgedSet<SuiteKind> {
  /** Played, but the checker still passed it: not a negative, so not in `trajectories`. */
  readonly discarded: ReadonlyArray<SetAside>
  /** Not played: nothing to corrupt that way, or the same run as another type of the same source. */
  readonly notBuilt: ReadonlyArray<SetAside>
  /** Family scripts played as sources, and those the checker passed. */
  readonly sources: { readonly played: number; readonly passing: number }
}

/** Every corruption of one source script, in a fixed order; null where the type does not apply (the reason beside it). */
const corruptionsOf = (
  task: SuiteTask,
  family: string,
  script: ReadonlyArray<Step>,
  sibling: SuiteTask | undefined,
  seed: string
): ReadonlyArray<readonly [CorruptionType, Corruption | string]> => {
  const rng = (type: CorruptionType) => seededRng(seed, task.id, family, type)
  const siblingScript = sibling === undefined ? undefined : scriptsOf(task, sibling.parameters)?.[family]?.()
  const noSibling = sibling === undefined ? "no sibling instance with other parameters" : `no ${family} script for ${sibling.id}`
  const value = wrongValueVariant(script, task.parameters, rng("other-value"))
  const or = (c: Corruption | null, why: string): Corruption | string => c ?? why
  return [
    ["drop-key-step", or(dropKeyStep(script, rng("drop-key-step")), "no key step")],
    ["duplicate-key-step", or(duplicateKeyStep(script, rng("duplicate-key-step")), "no key step")],
    ["swap-steps", or(swapSteps(script), "no step to swap the last key step with")],
    [
      "other-item",
      siblingScript === undefined
        ? noSibling
        : { steps: siblingScript, note: `the script for ${sibling!.id}'s item`, signature: `item:${sibling!.id}` }
    ],
    ["other-value", value === null ? "no value to change" : { ...value, signature: "value" }],
    ["undo-after", or(undoAfter(script), "no key step with a known way back")],
    ["near-miss-answer", or(nearMissAnswer(script, rng("near-miss-answer")), "the task has no answer")],
    ["stop-early", or(stopEarly(script), "nothing before the end")],
    [
      "side-effect",
      siblingScript === undefined ? noSibling : or(sideEffect(script, siblingScript, sibling!.id), "the sibling's script changes nothing")
    ]
  ]
}

/** Builds the suite; see the module comment. Never fails on a failing script: a broken run is a trajectory too. */
export const buildCorruptionSet = (options: CorruptionSetOptions = {}) =>
  Effect.gen(function* () {
    const log = options.progress ?? (() => undefined)
    const seed = options.seed ?? "core-corruptions-v1"
    const suites = (yield* loadSuites()).filter(
      (s) => SOLVED_SUITES.includes(s.suite) && (options.suite === undefined || s.suite === options.suite)
    )
    if (suites.length === 0)
      return yield* Effect.fail(new Error(`no scripted solutions for suite '${options.suite}' (have: ${SOLVED_SUITES.join(", ")})`))
    const all = suites.flatMap((s) => s.tasks)
    const wanted = options.instances === undefined ? undefined : new Set(options.instances)
    const tasks = all.filter((t) => t.split === "train" && (wanted === undefined || wanted.has(t.id)))
    const missing = [...(wanted ?? [])].filter((id) => !tasks.some((t) => t.id === id))
    if (missing.length > 0)
      return yield* Effect.fail(new Error(`not train instances of ${suites.map((s) => s.suite).join(", ")}: ${missing.join(", ")}`))

    const { judge, lfOf } = yield* openScriptPlayer()
    const evalTasks: Array<EvalTask> = []
    const trajectories: Array<EvalTrajectory<SuiteKind>> = []
    const discarded: Array<SetAside> = []
    const notBuilt: Array<SetAside> = []
    const sources = { played: 0, passing: 0 }
    for (const [n, task] of tasks.entries()) {
      const started = performance.now()
      const scripts = scriptsOf(task) ?? {}
      const families = task.pathFamilies.map((f) => f.id).slice(0, options.demosOnly === true ? 1 : undefined)
      const sibling = siblingOf(task, all)
      for (const family of families) {
        const script = scripts[family]?.()
        if (script === undefined) continue
        const source = yield* judge(task, script)
        sources.played++
        if (family === families[0]) evalTasks.push(yield* evalTaskOf(task, source, lfOf))
        if (!source.checker || source.run.error !== null) {
          log(`${task.id}/${family}: the source itself does not pass (${source.reason}); not corrupted`)
          continue
        }
        sources.passing++
        trajectories.push({
          id: `${task.id}/source/${family}`,
          taskId: task.id,
          kind: "source",
          family,
          trajectory: yield* lfOf(source.run),
          checker: true,
          note: `checker: ${source.reason}`,
          partial: false
        })
        const played = new Map<string, CorruptionType>()
        for (const [kind, c] of corruptionsOf(task, family, script, sibling, seed)) {
          const id = `${task.id}/${kind}/${family}`
          if (typeof c === "string") {
            notBuilt.push({ id, kind, reason: c })
            continue
          }
          const same = played.get(c.signature)
          if (same !== undefined) {
            notBuilt.push({ id, kind, reason: `the same run as ${same}` })
            continue
          }
          played.set(c.signature, kind)
          const judged = yield* judge(task, c.steps)
          const broke = judged.run.error === null ? [] : [`stopped early at ${judged.run.error.message}`]
          const note = [c.note, ...broke, `checker: ${judged.reason}`].join("; ")
          if (judged.checker) {
            discarded.push({ id, kind, reason: note })
            log(`discarded ${id}: the checker still passes it (${c.note})`)
            continue
          }
          trajectories.push({
            id,
            taskId: task.id,
            kind,
            family,
            trajectory: yield* lfOf(judged.run),
            checker: false,
            note,
            partial: judged.run.error !== null
          })
        }
      }
      log(
        `${n + 1}/${tasks.length} ${task.id}: ${trajectories.filter((t) => t.taskId === task.id && t.kind !== "source").length} negatives in ${((performance.now() - started) / 1000).toFixed(1)} s`
      )
    }
    return { tasks: evalTasks, trajectories, discarded, notBuilt, sources } satisfies CorruptionSet
  }).pipe(Effect.scoped)
