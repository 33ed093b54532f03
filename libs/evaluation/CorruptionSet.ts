/**
 * The hard-negative suite (`bun core eval corruptions`). EVALUATION CODE. For every train
 * instance of the bundled sites, each path family's script (the demo's and the other paths')
 * is played and kept as a source when its checker passes it. Each source is then corrupted in
 * the ways that look most like success (@core/sites/solutions Corrupt.ts: each key step dropped,
 * each done twice, the last swapped, undone after the rest, a stop one step early, a near-miss answer, a
 * side effect on a sibling item, a sibling item, one value changed), and every corrupted script
 * is played in the real environment. A corruption the checker still passes is not a negative:
 * it is discarded as one and counted, and kept beside them so the report can say how many
 * of those CORE accepted (a link clicked twice is right; a comment posted twice passes a
 * lenient checker). The sources are the positives and the confirmed negatives the
 * negatives of the agreement figures (recall, κ, NPV).
 *
 * @example
 * const set = yield* buildCorruptionSet({ instances: ["forum-upvote-1"], progress: console.log })
 * set.trajectories[0] // { id: "forum-upvote-1/drop-key-step/vote", kind: "drop-key-step", checker: false, … }
 */
import { Effect } from "effect"
import { Corruption as Corruptions } from "@core/domain"
import type { Action } from "@core/events"
import {
  dropKeySteps,
  duplicateKeySteps,
  nearMissAnswer,
  scriptOfActions,
  scriptsOf,
  seededRng,
  sideEffect,
  stopEarly,
  swapSteps,
  undoAfter,
  wrongValueVariant
} from "@core/sites/solutions"
import type { Corruption, CorruptionType, Step } from "@core/sites/solutions"
import type { SuiteTask } from "@core/sites/suites"
import type { EvalTask, EvalTrajectory, JudgedSet } from "./LabelEvalSet.ts"
import { siblingOf, trainInstances } from "./LabelEvalSet.ts"
import { evalTaskOf, openScriptPlayer } from "./ScriptPlayer.ts"

/** What builds a hard-negative suite, on the bundled sites or on a pack. */
export interface SuiteOptions {
  /** Only these train instances (task ids). */
  readonly instances?: ReadonlyArray<string>
  /** Only the demo as a source (the CI test's slice); every passing script or alternative by default. */
  readonly demosOnly?: boolean
  /** A run's verified passes as the sources instead (tasks without one have none). */
  readonly runPasses?: ReadonlyArray<RunPass>
  /** Players at once, each with its own browser: 2 by default (a pack's at most its pool). */
  readonly parallel?: number
  readonly seed?: string
  readonly progress?: (line: string) => void
}

export interface CorruptionSetOptions extends SuiteOptions {
  /** One suite; all solved suites by default. */
  readonly suite?: string
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
  /** Played, but the checker still passed it: not a negative, and in `trajectories` as a positive. */
  readonly discarded: ReadonlyArray<SetAside>
  /** Not played: nothing to corrupt that way, or the same run as another type of the same source. */
  readonly notBuilt: ReadonlyArray<SetAside>
  /** Family scripts played as sources, and those the checker passed. */
  readonly sources: { readonly played: number; readonly passing: number }
}

/** What a source's other-item and side-effect corruptions use: the same way for another item, or why there is none. */
interface Sibling {
  readonly id: string
  /** The source done for the sibling's item. */
  readonly script: ReadonlyArray<Step> | undefined
}

/** Every corruption of one source, in a fixed order; where a type does not apply, the reason instead. */
const corruptionsOf = (
  task: SuiteTask,
  source: string,
  script: ReadonlyArray<Step>,
  sibling: Sibling | string,
  seed: string
): ReadonlyArray<readonly [CorruptionType, Corruption | string]> => {
  const rng = (type: CorruptionType) => seededRng(seed, task.id, source, type)
  const other = typeof sibling === "string" ? sibling : sibling.script === undefined ? `no ${source} script for ${sibling.id}` : sibling
  const value = wrongValueVariant(script, task.parameters, rng("other-value"))
  const or = (c: Corruption | null, why: string): Corruption | string => c ?? why
  const each = (type: CorruptionType, cs: ReadonlyArray<Corruption>) =>
    cs.length === 0 ? [[type, "no key step"] as const] : cs.map((c) => [type, c] as const)
  return [
    ...each("drop-key-step", dropKeySteps(script)),
    ...each("duplicate-key-step", duplicateKeySteps(script)),
    ["swap-steps", or(swapSteps(script), "no step to swap the last key step with")],
    [
      "other-item",
      typeof other === "string"
        ? other
        : { steps: other.script!, note: `the same way for ${other.id}'s item`, signature: `item:${other.id}` }
    ],
    ["other-value", value === null ? "no value to change" : { ...value, signature: "value" }],
    ["undo-after", or(undoAfter(script), "no key step with a known way back")],
    ["near-miss-answer", or(nearMissAnswer(script, rng("near-miss-answer")), "the task has no answer")],
    ["stop-early", or(stopEarly(script), "nothing before the end")],
    [
      "side-effect",
      typeof other === "string" ? other : or(sideEffect(script, other.script!, other.id), "the sibling's way changes nothing")
    ]
  ]
}

/** A run's verified pass, as `eval corruptions --run` takes it for a source. */
export interface RunPass {
  readonly trajectoryId: string
  readonly taskId: string
  readonly actions: ReadonlyArray<Action>
}

/** Every value of `from` in a text replaced by `to`'s: a recorded way for another item. */
const renamer = (from: SuiteTask["parameters"], to: SuiteTask["parameters"]) => {
  const pairs = Object.keys(from)
    .map((k) => [String(from[k]), String(to[k] ?? from[k])] as const)
    .filter(([a, b]) => a.length > 1 && a !== b)
    .sort((x, y) => y[0].length - x[0].length)
  return (text: string) => pairs.reduce((t, [a, b]) => t.split(a).join(b), text)
}

/** What one task adds to a suite. */
export interface TaskPart {
  readonly evalTask: EvalTask | null
  readonly trajectories: ReadonlyArray<EvalTrajectory<SuiteKind>>
  readonly discarded: ReadonlyArray<SetAside>
  readonly notBuilt: ReadonlyArray<SetAside>
  readonly played: number
  readonly passing: number
}

type Player = Effect.Success<ReturnType<typeof openScriptPlayer>>

/** Every source of one task and every corruption of each, on one player. */
const corruptTask = (
  { judge, lfOf }: Player,
  task: SuiteTask,
  all: ReadonlyArray<SuiteTask>,
  options: CorruptionSetOptions,
  seed: string,
  log: (line: string) => void
) =>
  Effect.gen(function* () {
    const trajectories: Array<EvalTrajectory<SuiteKind>> = []
    const discarded: Array<SetAside> = []
    const notBuilt: Array<SetAside> = []
    const counts = { played: 0, passing: 0 }
    let evalTask: EvalTask | null = null

    /** Plays a source and, when its checker passes it, every corruption of it. */
    const corrupt = (source: string, script: ReadonlyArray<Step>, sibling: Sibling | string) =>
      Effect.gen(function* () {
        const played = yield* judge(task, script)
        counts.played++
        if (!played.checker || played.run.error !== null) {
          log(`${task.id}/${source}: the source itself does not pass (${played.reason}); not corrupted`)
          return played
        }
        counts.passing++
        const trajectory = yield* lfOf(played.run)
        const note = `checker: ${played.reason}`
        trajectories.push({
          id: `${task.id}/source/${source}`,
          taskId: task.id,
          kind: "source",
          family: source,
          trajectory,
          checker: true,
          note,
          partial: false
        })
        const plan = Corruptions.planCorruptions(task.id, source, corruptionsOf(task, source, script, sibling, seed))
        notBuilt.push(...plan.setAside)
        for (const { id, kind, corruption: c } of plan.play) {
          const judged = yield* judge(task, c.steps)
          const broke = judged.run.error === null ? [] : [`stopped early at ${judged.run.error.message}`]
          const why = [c.note, ...broke, `checker: ${judged.reason}`].join("; ")
          if (judged.checker) discarded.push({ id, kind, reason: why })
          const partial = judged.run.error !== null
          const lf = yield* lfOf(judged.run)
          trajectories.push({ id, taskId: task.id, kind, family: source, trajectory: lf, checker: judged.checker, note: why, partial })
        }
        return played
      })

    const scripts = scriptsOf(task) ?? {}
    const primary = task.pathFamilies[0]!.id
    const sibling = siblingOf(task, all)
    const passes = options.runPasses?.filter((p) => p.taskId === task.id)
    if (passes !== undefined) {
      // The demo is played for its label functions only; the run's passes are the sources.
      evalTask = yield* evalTaskOf(task, yield* judge(task, scripts[primary]?.() ?? []), lfOf)
      for (const pass of passes) {
        const script = scriptOfActions(pass.actions)
        const source = `run:${pass.trajectoryId}`
        if (script === null) {
          log(`${task.id}/${source}: an action with no scripted form; not corrupted`)
          continue
        }
        const renamed = sibling === undefined ? null : scriptOfActions(pass.actions, renamer(task.parameters, sibling.parameters))
        yield* corrupt(
          source,
          script,
          renamed === null ? "no sibling instance with other parameters" : { id: sibling!.id, script: renamed }
        )
      }
    } else {
      const families = task.pathFamilies.map((f) => f.id).slice(0, options.demosOnly === true ? 1 : undefined)
      for (const family of families) {
        const script = scripts[family]?.()
        if (script === undefined) continue
        const other: Sibling | string =
          sibling === undefined
            ? "no sibling instance with other parameters"
            : { id: sibling.id, script: scriptsOf(task, sibling.parameters)?.[family]?.() }
        const played = yield* corrupt(family, script, other)
        if (family === primary) evalTask = yield* evalTaskOf(task, played, lfOf)
      }
    }
    return { evalTask, trajectories, discarded, notBuilt, ...counts } satisfies TaskPart
  })

/**
 * Builds the suite; see the module comment. Tasks are shared out over `parallel` players
 * (each its own sites and browser) and put back in task order, so the suite is the same
 * whatever the parallelism. Never fails on a failing script: a broken run is a trajectory too.
 */
export const buildCorruptionSet = (options: CorruptionSetOptions = {}) =>
  Effect.gen(function* () {
    const log = options.progress ?? (() => undefined)
    const seed = options.seed ?? "core-corruptions-v1"
    const { all, tasks } = yield* trainInstances(options)
    const withPasses = options.runPasses === undefined ? undefined : new Set(options.runPasses.map((p) => p.taskId))
    const chosen = tasks.filter((t) => withPasses === undefined || withPasses.has(t.id))

    const lanes = Math.max(1, Math.min(options.parallel ?? 2, chosen.length))
    const players = yield* Effect.forEach(Array.from({ length: lanes }), () => openScriptPlayer())
    return yield* shareOut(players, chosen, (player, task) => corruptTask(player, task, all, options, seed, log), log)
  }).pipe(Effect.scoped)

/**
 * Tasks shared out over players (lane `l` takes every task `i` with `i % lanes === l`), each
 * task's part put back in task order, so a suite is the same whatever the parallelism; and
 * the parts joined into the suite.
 */
export const shareOut = <P, T extends { readonly id: string }, E, R>(
  players: ReadonlyArray<P>,
  tasks: ReadonlyArray<T>,
  corrupt: (player: P, task: T) => Effect.Effect<TaskPart, E, R>,
  log: (line: string) => void
) =>
  Effect.gen(function* () {
    const parts = new Array<TaskPart>(tasks.length)
    let done = 0
    yield* Effect.forEach(
      players,
      (player, lane) =>
        Effect.forEach(
          tasks.flatMap((t, i) => (i % players.length === lane ? [[t, i] as const] : [])),
          ([task, i]) =>
            Effect.gen(function* () {
              const started = performance.now()
              parts[i] = yield* corrupt(player, task)
              const negatives = parts[i]!.trajectories.filter((t) => !t.checker).length
              log(`${++done}/${tasks.length} ${task.id}: ${negatives} negatives in ${((performance.now() - started) / 1000).toFixed(1)} s`)
            }),
          { discard: true }
        ),
      { concurrency: "unbounded", discard: true }
    )
    return {
      tasks: parts.flatMap((p) => (p.evalTask === null ? [] : [p.evalTask])),
      trajectories: parts.flatMap((p) => p.trajectories),
      discarded: parts.flatMap((p) => p.discarded),
      notBuilt: parts.flatMap((p) => p.notBuilt),
      sources: { played: parts.reduce((n, p) => n + p.played, 0), passing: parts.reduce((n, p) => n + p.passing, 0) }
    } satisfies CorruptionSet
  })
