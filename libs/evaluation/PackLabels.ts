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
import { Context, Effect, Layer } from "effect"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { App, authOf, CommandApp, loadLogin, loadPack, packPageOptions, taskUrl } from "@core/apps"
import type { AppShape, Pack, PackAuth, PackTask, SecretRule } from "@core/apps"
import { DirectoryBlobStore } from "@core/blobstore"
import { loadStepFile, playSteps, StepPlayError } from "@core/demos"
import { fromDemoSteps } from "@core/domain"
import type { LfTrajectory } from "@core/domain"
import { BrowserPool, WebEnvironment } from "@core/env-web"
import { InfraError } from "@core/environment"
import type { EnvironmentShape } from "@core/environment"
import type { DemoStep } from "@core/events"
import { elementsLookup } from "@core/pipeline"
import { EvalError } from "./EvalError.ts"
import { scoreLabels } from "./LabelAccuracy.ts"
import { labelSet } from "./LabelEval.ts"
import type { EvalTrajectory, LabelEvalSet } from "./LabelEvalSet.ts"

interface Played {
  readonly steps: ReadonlyArray<DemoStep>
  readonly trajectory: LfTrajectory
  /** The pack's evaluate, as `taskId`, on the episode's final state. */
  readonly pass: boolean
}

/** Plays a step file on a fresh instance and asks evaluate about it as `judgedAs`. */
const play = (app: AppShape, env: EnvironmentShape, pack: Pack, auth: PackAuth | null, task: PackTask, file: string, judgedAs: string) =>
  Effect.gen(function* () {
    const steps = (yield* loadStepFile(file)).steps
    const lease = yield* Effect.acquireRelease(app.acquire(), (l) => l.release())
    const start = {
      taskId: task.id,
      startUrl: taskUrl(lease.instance, task.start),
      origins: lease.origins,
      ...packPageOptions(pack),
      ...authOf(auth, lease.instance)
    }
    const played = yield* playSteps(env, start, steps).pipe(Effect.ensuring(env.close()))
    const answer = played.flatMap((s) => (s.action.kind === "answer" ? [s.action.text] : [])).at(-1) ?? ""
    const judged = app.evaluate === undefined ? { pass: false } : yield* app.evaluate(lease, judgedAs, answer)
    const demoSteps: ReadonlyArray<DemoStep> = played.map((s) => ({ ...s, appBefore: null, appAfter: null }))
    const lookup = yield* elementsLookup(demoSteps.map((s) => s.observation.elements))
    return { steps: demoSteps, trajectory: fromDemoSteps(demoSteps, lookup), pass: judged.pass } satisfies Played
  }).pipe(
    Effect.scoped,
    // A start or first page that failed (a busy machine) says nothing about the step file: a fresh instance gets two more tries.
    Effect.retry({ times: 2, while: (e) => (e instanceof StepPlayError && e.step === null) || e instanceof InfraError })
  )

/** The evaluation set of a pack: its train tasks with a demo and an alternative step file. */
export const packLabelSet = (packDir: string, secrets: SecretRule, progress: (line: string) => void) =>
  Effect.gen(function* () {
    const pack = yield* loadPack(packDir)
    // Its episodes are built as web pages (a start URL on a leased instance): a device's would need their own.
    if (pack.config.platform === "android") {
      return yield* new EvalError({
        message: `eval labels without --run plays step files in Chromium; the pack ${pack.config.name} is Android: compare a run's verdicts instead (--run <id>)`
      })
    }
    const login = yield* loadLogin(pack, secrets)
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
    const scratch = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "core-pack-labels-"))),
      (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
    )
    const context = yield* Layer.build(
      Layer.mergeAll(BrowserPool.layer(), DirectoryBlobStore.layer({ dir: scratch }), CommandApp.layer(pack.dir))
    )
    const app = Context.get(context, App)
    const env = yield* Effect.provideContext(
      WebEnvironment.make({ screenshots: "none", prepareAhead: false, readSecret: login.readSecret }),
      context
    )
    const set: { tasks: Array<LabelEvalSet["tasks"][number]>; trajectories: Array<EvalTrajectory> } = { tasks: [], trajectories: [] }
    for (const [i, t] of tasks.entries()) {
      const run = (file: string, judgedAs: string) => Effect.provideContext(play(app, env, pack, login.auth, t, file, judgedAs), context)
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
    yield* env.close()
    return set satisfies LabelEvalSet
  }).pipe(Effect.scoped)

/** The set labelled by LFs inferred from each demo — alone, or with `round0` as a run's first graph judges — and scored against evaluate. */
export const packLabelScores = (packDir: string, secrets: SecretRule, progress: (line: string) => void, round0 = false) =>
  Effect.gen(function* () {
    const set = yield* packLabelSet(packDir, secrets, progress)
    const { tasks, labels } = yield* labelSet(set, null, progress, round0)
    return { score: scoreLabels(labels), tasks, labels }
  })
