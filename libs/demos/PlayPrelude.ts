/**
 * A step file played as an episode's `Prelude` (@core/env-web): an app's log-in, run on the
 * episode's page before its start page opens. Targets are resolved on the live page as a
 * demo's are (`resolveTarget`), a `type` by `secretEnv` types the variable's value, and
 * nothing is recorded: the environment observes only what comes after.
 *
 * @example
 * const file = yield* loadStepFile("packs/notes/auth.steps.json", { auth: true })
 * yield* env.reset({ taskId, startUrl, prelude: stepsPrelude("packs/notes/auth.steps.json", file.steps, baseUrl) })
 */
import { Effect } from "effect"
import { resolveTarget } from "@core/domain"
import { InfraError, targetOf } from "@core/environment"
import type { Prelude } from "@core/environment"
import { oneLine } from "./Format.ts"
import { planned } from "./PlaySteps.ts"
import { describeStep } from "./StepFile.ts"
import type { Step, StepTarget } from "./StepFile.ts"

/**
 * Plays `steps` from `startUrl` (the app's base URL, which `navigate` paths are resolved
 * against). A step that cannot be played fails the episode with one line naming `file` and
 * the step: `auth.steps.json: step 2 (click button "Sign in"): no element matches; …`.
 */
export const stepsPrelude = (file: string, steps: ReadonlyArray<Step>, startUrl: string): Prelude => ({
  startUrl,
  play: (page) =>
    Effect.gen(function* () {
      for (const [i, step] of steps.entries()) {
        const fail = (problem: string) =>
          new InfraError({ reason: `${oneLine(file, 1000)}: step ${i + 1} (${describeStep(step)}): ${oneLine(problem, 1000)}` })
        // Read when a step has a target: the page as this step finds it.
        const resolve = (target: StepTarget) =>
          Effect.flatMap(page.elements, (elements) => {
            const r = resolveTarget(target, elements)
            return "problem" in r ? Effect.fail(fail(r.problem)) : Effect.succeed(targetOf(r.element))
          })
        const plan = yield* planned(step, resolve, startUrl, false).pipe(Effect.mapError((e) => (typeof e === "string" ? fail(e) : e)))
        const error = yield* page.act(plan.send)
        if (error !== null) return yield* fail(error)
      }
    })
})
