/**
 * Playing a step file (StepFile.ts) through an environment and recording it as a demo's
 * steps: each target is resolved on the observation the step acts on (`resolveTarget` of
 * @core/domain), so element ids come from the live page, never from the file. Recorded like
 * scripted solutions (apps/sites/solutions/Runner.ts): the action as the environment
 * performed it (a password sealed), URLs as path + query, so a demo does not depend on the
 * server's address — a `navigate` too is recorded by its path.
 *
 * Lives in @core/demos because its output is a demo: it needs only the environment's
 * interface (`EnvironmentShape`), so it plays on the web and on mobile web alike.
 *
 * @example
 * const { initial, steps } = yield* playDemo(env, { taskId: "shop-wishlist-add-1", site: "shop", siteSeed: 101 }, file.steps)
 * yield* writeDemoFolder(steps, "demos/shop/shop-wishlist-add-1", { demoId, taskId, recordedWith: "script", initial })
 */
import { Effect, Schema } from "effect"
import { resolveTarget, sitePath } from "@core/domain"
import { targetOf } from "@core/environment"
import type { EnvironmentShape, EnvTask, FullObservation, InfraError } from "@core/environment"
import { oneLine as foldLine } from "@core/events"
import type { Action, Target } from "@core/events"
import { oneLine } from "./Format.ts"
import { describeStep } from "./StepFile.ts"
import type { Step, StepTarget } from "./StepFile.ts"
import type { DemoFolderStep } from "./Writer.ts"

/** A step that could not be played: `step 3 (click link "Getting Started"): …`, one line; `step` is 1-based, null for the reset. */
export class StepPlayError extends Schema.TaggedError<StepPlayError>()("StepPlayError", {
  message: Schema.String,
  step: Schema.NullOr(Schema.Int)
}) {}

/** A step file that did not play to its end, named with the step's failure. */
export class StepsNotPlayed extends Schema.TaggedError<StepsNotPlayed>()("StepsNotPlayed", {
  file: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${foldLine(this.file, 1000)}: ${this.reason}`
  }
}

/** One played step, as `writeDemoFolder` takes it (the app fields are null on the web). */
export interface PlayedStep extends DemoFolderStep {
  readonly appBefore: string | null
  readonly appAfter: string | null
  readonly observation: FullObservation["observation"]
}

/** What to send the environment, and what the demo records when the environment does not say otherwise. */
interface Planned {
  readonly send: Action
  readonly record: Action
}

/** A played step file: the screen the episode started on (a demo's `initial`) and each step as recorded. */
export interface PlayedDemo {
  readonly initial: FullObservation["observation"]
  readonly steps: ReadonlyArray<PlayedStep>
  /** The episode the environment opened from its source (what the app ran it on), null for a bare start URL. */
  readonly episode: string | null
  /** With `untilProblem`: the step that could not be played, where the episode ended; else null. */
  readonly stopped: StepPlayError | null
}

interface PlayOptions {
  /** Hears each step once recorded, counted from 1 as messages count them. */
  readonly onStep?: (step: PlayedStep, index: number) => void
  /**
   * End the episode at the first step that cannot be played and return what was played, instead
   * of failing: a corrupted trajectory (a step dropped, so the next target is not there) is an
   * episode too, and the app's state after it is what gets judged.
   */
  readonly untilProblem?: boolean
}

/** `playDemo`'s steps alone (a version 1 demo's, which has no screen before its first step). */
export const playSteps = (env: EnvironmentShape, task: EnvTask, steps: ReadonlyArray<Step>, options: PlayOptions = {}) =>
  Effect.map(playDemo(env, task, steps, options), (played) => played.steps)

/**
 * Plays `steps` on a fresh episode of `task` and returns them as recorded, with the screen at
 * reset. Stops at the first step whose target is not on the page, or whose action the
 * environment reports an error for (except the final `answer` / `status`, which only end the episode).
 */
export const playDemo = (
  env: EnvironmentShape,
  task: EnvTask,
  steps: ReadonlyArray<Step>,
  options: PlayOptions = {}
): Effect.Effect<PlayedDemo, StepPlayError | InfraError> =>
  Effect.gen(function* () {
    let obs = yield* env.reset(task)
    if (obs.observation.error !== null) return yield* new StepPlayError({ message: `reset: ${oneLine(obs.observation.error)}`, step: null })
    const initial = obs.observation
    const episode = obs.episode
    // The app's base URL: where the episode landed (a bundled site's enter URL redirects to its home).
    const base = obs.observation.url ?? task.startUrl ?? null
    const played: Array<PlayedStep> = []
    let stopped: StepPlayError | null = null
    for (const [i, step] of steps.entries()) {
      const one = Effect.gen(function* () {
        const where = `step ${i + 1} (${describeStep(step)})`
        const fail = (problem: string) => new StepPlayError({ message: `${where}: ${oneLine(problem, 1000)}`, step: i + 1 })
        const resolve = (target: StepTarget): Effect.Effect<Target, StepPlayError> => {
          const r = resolveTarget(target, obs.elements)
          return "problem" in r ? Effect.fail(fail(r.problem)) : Effect.succeed(targetOf(r.element))
        }
        const plan = yield* planned(step, resolve, base, task.hashRouting === true).pipe(
          Effect.mapError((e) => (typeof e === "string" ? fail(e) : e))
        )
        const urlBefore = sitePath(obs.observation.url, task.hashRouting === true)
        const appBefore = obs.observation.app
        obs = yield* env.step(plan.send)
        const ends = step.kind === "answer" || step.kind === "status"
        if (obs.observation.error !== null && !ends) return yield* fail(obs.observation.error)
        // answer / status end the episode without a browser action: the page is where it was.
        const urlAfter = ends ? urlBefore : sitePath(obs.observation.url, task.hashRouting === true)
        const appAfter = ends ? appBefore : obs.observation.app
        const recorded: PlayedStep = {
          action: obs.performed ?? plan.record,
          urlBefore,
          urlAfter,
          appBefore,
          appAfter,
          observation: obs.observation
        }
        played.push(recorded)
        options.onStep?.(recorded, i + 1)
      })
      const problem = yield* one.pipe(
        Effect.as(null),
        Effect.catchTag("StepPlayError", (e) => (options.untilProblem === true ? Effect.succeed(e) : Effect.fail(e)))
      )
      if (problem !== null) {
        stopped = problem
        break
      }
    }
    return { initial, steps: played, episode, stopped }
  })

const same = (action: Action): Planned => ({ send: action, record: action })

/** The concrete action of `step`: targets resolved on the page, a navigation resolved against `base`. */
export const planned = <E>(
  step: Step,
  resolve: (target: StepTarget) => Effect.Effect<Target, E>,
  base: string | null,
  hashRouting: boolean
): Effect.Effect<Planned, E | string> =>
  Effect.gen(function* () {
    switch (step.kind) {
      case "click":
      case "long_press":
        return same({ kind: step.kind, target: yield* resolve(step.target) })
      case "type":
        return same({
          kind: "type",
          target: yield* resolve(step.target),
          // A secret is typed by reference: the environment reads the variable, the demo holds its name.
          text: step.secretEnv === undefined ? (step.text ?? "") : "",
          submit: step.submit === true,
          ...(step.secretEnv === undefined ? {} : { secretEnv: step.secretEnv }),
          ...(step.mode === undefined ? {} : { mode: step.mode })
        })
      case "select":
        return same({ kind: "select", target: yield* resolve(step.target), value: step.value })
      case "scroll":
        return same({ kind: "scroll", target: step.target === undefined ? null : yield* resolve(step.target), direction: step.direction })
      case "navigate": {
        if (base === null) return yield* Effect.fail("no base URL to resolve the path against (the episode started nowhere)")
        const href = URL.parse(step.url, base)?.href
        if (href === undefined) return yield* Effect.fail(`${JSON.stringify(step.url)} is not a URL path`)
        return { send: { kind: "navigate", url: href }, record: { kind: "navigate", url: sitePath(href, hashRouting) ?? step.url } }
      }
      case "key":
        return same({ kind: "key", key: step.key })
      case "open_app":
        return same({ kind: "open_app", app: step.app })
      case "answer":
        return same({ kind: "answer", text: step.text })
      case "status":
        return same({ kind: "status", status: step.status })
      case "wait":
        return same({ kind: "wait", ms: step.ms })
      case "back":
      case "home":
        return same({ kind: step.kind })
    }
  })
