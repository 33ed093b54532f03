/**
 * EVALUATION of a pack's label functions without a run (`eval labels --app <dir>`). For each
 * train task with a step file and an alternative: the demo is played and label functions are
 * inferred from it alone (embedded backends); each alternative — the same task done another
 * way — is played and should pass; another task's alternative, judged as this task, should
 * not. The pack's evaluate judges every episode, so the figures are precision and recall of
 * CORE's labels against the app's own check. Alternatives are of two kinds, scored apart:
 *
 * - `demos/alt/<task>.steps.json`, another path: the same changes made after reaching the
 *   page another way (search instead of links), or in another order;
 * - `demos/alt/<task>.method.steps.json`, another method: the change made by another
 *   control (an autocomplete instead of a button, retyping a text instead of inserting).
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import type { PackTask, SecretRule } from "@core/apps"
import { loadStepFile } from "@core/demos"
import { scoreLabels } from "./LabelAccuracy.ts"
import { labelSet } from "./LabelEval.ts"
import type { EvalTrajectory, LabelEvalSet } from "./LabelEvalSet.ts"
import { openPackPlayer } from "./PackPlayer.ts"

/** The evaluation set of a pack: its train tasks with a demo and an alternative step file. */
export const packLabelSet = (packDir: string, secrets: SecretRule, progress: (line: string) => void) =>
  Effect.gen(function* () {
    const { pack, lanes } = yield* openPackPlayer(packDir, secrets, 1)
    const altsOf = (t: PackTask) =>
      (
        [
          ["other-path", `${t.id}.steps.json`],
          ["other-method", `${t.id}.method.steps.json`]
        ] as const
      )
        .map(([kind, name]) => ({ kind, file: resolve(pack.dir, "demos", "alt", name) }))
        .filter((a) => existsSync(a.file))
    const tasks = pack.tasks.filter((t) => t.split === "train" && t.steps !== null && altsOf(t).length > 0)
    const set: { tasks: Array<LabelEvalSet["tasks"][number]>; trajectories: Array<EvalTrajectory> } = { tasks: [], trajectories: [] }
    for (const [i, t] of tasks.entries()) {
      const run = (file: string, judgedAs: string) => Effect.flatMap(loadStepFile(file), (f) => lanes[0]!.play(t, f.steps, judgedAs))
      const demo = yield* run(resolve(pack.dir, t.steps!), t.id)
      set.tasks.push({
        taskId: t.id,
        suite: pack.config.name,
        template: t.id,
        instruction: t.instruction,
        family: "demo",
        demo: demo.trajectory,
        demoSteps: demo.steps,
        demoChecker: demo.pass,
        demoNote: "the task's step file"
      })
      const verdicts: Array<string> = []
      for (const a of altsOf(t)) {
        const alt = yield* run(a.file, t.id)
        set.trajectories.push({
          id: `${t.id}/${a.kind}/alt`,
          taskId: t.id,
          kind: a.kind,
          family: "alt",
          trajectory: alt.trajectory,
          checker: alt.pass,
          note: `demos/alt (${a.kind})`,
          partial: false
        })
        verdicts.push(`${a.kind} ${alt.pass ? "passes" : "fails"}`)
      }
      // Another task done well is this task not done: evaluate says so, and the labels should too.
      const other = tasks[(i + 1) % tasks.length]!
      if (other.id !== t.id) {
        const wrong = yield* run(altsOf(other)[0]!.file, t.id)
        set.trajectories.push({
          id: `${t.id}/wrong-item/${other.id}`,
          taskId: t.id,
          kind: "wrong-item",
          family: null,
          trajectory: wrong.trajectory,
          checker: wrong.pass,
          note: `the alternative of ${other.id}`,
          partial: false
        })
      }
      progress(`${i + 1}/${tasks.length} ${t.id}: demo ${demo.pass ? "passes" : "FAILS"} evaluate; alternatives: ${verdicts.join(", ")}`)
    }
    return set satisfies LabelEvalSet
  }).pipe(Effect.scoped)

/** The set labelled by LFs inferred from each demo — alone, or with `round0` as a run's first graph judges — and scored against evaluate. */
export const packLabelScores = (packDir: string, secrets: SecretRule, progress: (line: string) => void, round0 = false) =>
  Effect.gen(function* () {
    const set = yield* packLabelSet(packDir, secrets, progress)
    const { tasks, labels } = yield* labelSet(set, null, progress, round0)
    return { score: scoreLabels(labels), tasks, labels }
  })
