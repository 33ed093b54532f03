/**
 * EVALUATION of a pack's label functions without a run (`eval labels --app <dir>`). For each
 * train task with a step file and an alternative one (`demos/alt/<task>.steps.json`): the
 * demo is played and label functions are inferred from it alone (embedded backends); the
 * alternative — the same task done another way — is played and should pass; another task's
 * alternative, judged as this task, should not. The pack's evaluate judges every episode, so
 * the figures are precision and recall of CORE's labels against the app's own check.
 */
import { Context, Effect, Layer } from "effect"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { App, CommandApp, loadPack, taskUrl } from "@core/apps"
import type { AppShape, Pack, PackTask } from "@core/apps"
import { DirectoryBlobStore } from "@core/blobstore"
import { loadStepFile, playSteps } from "@core/demos"
import { fromDemoSteps } from "@core/domain"
import type { LfTrajectory } from "@core/domain"
import { BrowserPool, WebEnvironment } from "@core/env-web"
import type { EnvironmentShape } from "@core/env-web"
import type { DemoStep } from "@core/events"
import { elementsLookup, labelSandbox, noModels } from "@core/pipeline"
import { labelTasks, labelTrajectories, scoreLabels } from "@core/sites/eval"
import type { EvalTrajectory, LabelEvalSet } from "@core/sites/eval"

interface Played {
  readonly steps: ReadonlyArray<DemoStep>
  readonly trajectory: LfTrajectory
  /** The pack's evaluate, as `taskId`, on the episode's final state. */
  readonly pass: boolean
}

/** Plays a step file on a fresh instance and asks evaluate about it as `judgedAs`. */
const play = (app: AppShape, env: EnvironmentShape, pack: Pack, task: PackTask, file: string, judgedAs: string) =>
  Effect.gen(function*() {
    const steps = (yield* loadStepFile(file)).steps
    const lease = yield* Effect.acquireRelease(app.acquire(), (l) => l.release())
    const quiet = pack.config.pageQuietMs > 0 ? { pageQuietMs: pack.config.pageQuietMs } : {}
    const played = yield* playSteps(env, { taskId: task.id, startUrl: taskUrl(lease.instance, task.start), origins: lease.origins, ...quiet }, steps).pipe(Effect.ensuring(env.close()))
    const answer = played.flatMap((s) => (s.action.kind === "answer" ? [s.action.text] : [])).at(-1) ?? ""
    const judged = app.evaluate === undefined ? { pass: false } : yield* app.evaluate(lease, judgedAs, answer)
    const demoSteps: ReadonlyArray<DemoStep> = played.map((s) => ({ ...s, appBefore: null, appAfter: null }))
    const lookup = yield* elementsLookup(demoSteps.map((s) => s.observation.elements))
    return { steps: demoSteps, trajectory: fromDemoSteps(demoSteps, lookup), pass: judged.pass } satisfies Played
  }).pipe(Effect.scoped)

/** The evaluation set of a pack: its train tasks with a demo and an alternative step file. */
export const packLabelSet = (packDir: string, progress: (line: string) => void) =>
  Effect.gen(function*() {
    const pack = yield* loadPack(packDir)
    const altOf = (t: PackTask) => resolve(pack.dir, "demos", "alt", `${t.id}.steps.json`)
    const tasks = pack.tasks.filter((t) => t.split === "train" && t.steps !== null && existsSync(altOf(t)))
    const scratch = yield* Effect.acquireRelease(Effect.sync(() => mkdtempSync(join(tmpdir(), "core-pack-labels-"))), (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true })))
    const context = yield* Layer.build(Layer.mergeAll(BrowserPool.layer(), DirectoryBlobStore.layer({ dir: scratch }), CommandApp.layer(pack.dir)))
    const app = Context.get(context, App)
    const env = yield* Effect.provideContext(WebEnvironment.make({ screenshots: "none", prepareAhead: false }), context)
    const set: { tasks: Array<LabelEvalSet["tasks"][number]>; trajectories: Array<EvalTrajectory> } = { tasks: [], trajectories: [] }
    for (const [i, t] of tasks.entries()) {
      const run = (file: string, judgedAs: string) => Effect.provideContext(play(app, env, pack, t, file, judgedAs), context)
      const demo = yield* run(resolve(pack.dir, t.steps!), t.id)
      set.tasks.push({ taskId: t.id, suite: pack.config.name, template: t.id, instruction: t.instruction, family: "demo", demo: demo.trajectory, demoSteps: demo.steps, demoChecker: demo.pass, demoNote: "the task's step file" })
      const alt = yield* run(altOf(t), t.id)
      set.trajectories.push({ id: `${t.id}/other-path/alt`, taskId: t.id, kind: "other-path", family: "alt", trajectory: alt.trajectory, checker: alt.pass, note: "demos/alt", partial: false })
      // Another task done well is this task not done: evaluate says so, and the labels should too.
      const other = tasks[(i + 1) % tasks.length]!
      if (other.id !== t.id) {
        const wrong = yield* run(altOf(other), t.id)
        set.trajectories.push({ id: `${t.id}/wrong-item/${other.id}`, taskId: t.id, kind: "wrong-item", family: null, trajectory: wrong.trajectory, checker: wrong.pass, note: `the alternative of ${other.id}`, partial: false })
      }
      progress(`${i + 1}/${tasks.length} ${t.id}: demo ${demo.pass ? "passes" : "FAILS"} evaluate, alternative ${alt.pass ? "passes" : "fails"}`)
    }
    yield* env.close()
    return set satisfies LabelEvalSet
  }).pipe(Effect.scoped)

/** The set labelled by LFs inferred from each demo alone, and scored against evaluate. */
export const packLabelScores = (packDir: string, progress: (line: string) => void) =>
  Effect.gen(function*() {
    const set = yield* packLabelSet(packDir, progress)
    const tasks = yield* labelTasks(set, progress)
    const labels = yield* labelTrajectories(set, tasks, progress)
    return { score: scoreLabels(labels), tasks, labels }
  }).pipe(Effect.provide(Layer.mergeAll(labelSandbox(), noModels)))
