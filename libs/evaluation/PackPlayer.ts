/**
 * Plays steps on fresh instances of an app pack and has each episode judged by the pack's own
 * `evaluate`. EVALUATION CODE, shared by the pack's label evaluation (PackLabels.ts) and its
 * hard-negative suite (PackCorruptions.ts). Each lane is its own browser environment over one
 * pool, so lanes play at once; each play leases its own instance.
 *
 * @example
 * const { pack, lanes } = yield* openPackPlayer("packs/myapp", secrets, 2) // needs Scope
 * const played = yield* lanes[0]!.play(task, steps, task.id)              // { steps, trajectory, pass, stopped, aria }
 */
import { Context, Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { App, authOf, CommandApp, loadLogin, loadPack, packPageOptions, taskUrl } from "@core/apps"
import type { Pack, PackTask, SecretRule } from "@core/apps"
import { BlobStore, DirectoryBlobStore } from "@core/blobstore"
import { playDemo, StepPlayError } from "@core/demos"
import type { Step } from "@core/demos"
import { fromDemoSteps } from "@core/domain"
import type { LfTrajectory } from "@core/domain"
import { BrowserPool, WebEnvironment } from "@core/env-web"
import { InfraError } from "@core/environment"
import type { DemoStep } from "@core/events"
import { elementsLookup } from "@core/pipeline"
import { EvalError } from "./EvalError.ts"

export interface PackPlayed {
  readonly steps: ReadonlyArray<DemoStep>
  readonly trajectory: LfTrajectory
  /** The pack's evaluate, as the task judged, on the episode's final state. */
  readonly pass: boolean
  /** With `untilProblem`: the step that could not be played, where the episode ended. */
  readonly stopped: string | null
  /** The last page's aria snapshot (what a near-miss answer is read from), null when none was kept. */
  readonly aria: string | null
}

/** Opens `lanes` players over one browser pool and the pack's instances (needs Scope). Web packs only. */
export const openPackPlayer = (packDir: string, secrets: SecretRule, lanes: number) =>
  Effect.gen(function* () {
    const pack: Pack = yield* loadPack(packDir)
    // Its episodes are built as web pages (a start URL on a leased instance): a device's would need their own.
    if (pack.config.platform === "android") {
      return yield* new EvalError({
        message: `eval plays step files in Chromium; the pack ${pack.config.name} is Android (eval labels --app --run <id> compares a run's verdicts instead)`
      })
    }
    const login = yield* loadLogin(pack, secrets)
    const scratch = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "core-pack-eval-"))),
      (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
    )
    const context = yield* Layer.build(
      Layer.mergeAll(BrowserPool.layer(), DirectoryBlobStore.layer({ dir: scratch }), CommandApp.layer(pack.dir))
    )
    const app = Context.get(context, App)
    const blobs = Context.get(context, BlobStore)
    const lane = Effect.gen(function* () {
      const env = yield* Effect.acquireRelease(
        Effect.provideContext(WebEnvironment.make({ screenshots: "none", prepareAhead: false, readSecret: login.readSecret }), context),
        (e) => Effect.ignore(e.close())
      )
      /** Plays `steps` as `task` on a fresh instance and asks evaluate about it as `judgedAs`. */
      const play = (task: PackTask, steps: ReadonlyArray<Step>, judgedAs: string, options: { readonly untilProblem?: boolean } = {}) =>
        Effect.gen(function* () {
          const lease = yield* Effect.acquireRelease(app.acquire(), (l) => l.release())
          const start = {
            taskId: task.id,
            startUrl: taskUrl(lease.instance, task.start),
            origins: lease.origins,
            ...packPageOptions(pack),
            ...authOf(login.auth, lease.instance)
          }
          const played = yield* playDemo(env, start, steps, options).pipe(Effect.ensuring(env.close()))
          const answer = played.steps.flatMap((s) => (s.action.kind === "answer" ? [s.action.text] : [])).at(-1) ?? ""
          const judged = app.evaluate === undefined ? { pass: false } : yield* app.evaluate(lease, judgedAs, answer)
          const demoSteps: ReadonlyArray<DemoStep> = played.steps.map((s) => ({ ...s, appBefore: null, appAfter: null }))
          const lookup = yield* elementsLookup(demoSteps.map((s) => s.observation.elements))
          const last = (played.steps.at(-1)?.observation ?? played.initial).aria
          const aria = last === null ? null : new TextDecoder().decode(yield* blobs.get(last))
          return {
            steps: demoSteps,
            trajectory: fromDemoSteps(demoSteps, lookup),
            pass: judged.pass,
            stopped: played.stopped?.message ?? null,
            aria
          } satisfies PackPlayed
        }).pipe(
          Effect.scoped,
          Effect.provideContext(context),
          // A start or first page that failed (a busy machine) says nothing about the steps: a fresh instance gets two more tries.
          Effect.retry({ times: 2, while: (e) => (e instanceof StepPlayError && e.step === null) || e instanceof InfraError })
        )
      return { play }
    })
    return { pack, lanes: yield* Effect.forEach(Array.from({ length: Math.max(1, lanes) }), () => lane) }
  })

/** One lane of a pack player: `play(task, steps, judgedAs, { untilProblem })`. */
export type PackLane = Effect.Success<ReturnType<typeof openPackPlayer>>["lanes"][number]
