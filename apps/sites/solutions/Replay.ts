/**
 * Replays an expert demo in the real environment: a fresh episode of its task, then each
 * recorded action exactly as recorded, aimed at the element with the recorded episode-local
 * id. Ids are handed out in document order from the episode's first observation on, so the
 * same actions on the same seed meet the same ids; each target is checked to still have
 * the recorded role and name, and every step's URLs before and after to be the recorded
 * ones. The first difference is a failure naming the step: a demo that replays is one the
 * environment reproduces step for step, not merely one whose goal can be reached again.
 */
import { Effect } from "effect"
import type { EnvironmentShape } from "@core/environment"
import type { Action, DemoStep } from "@core/events"
import { ScriptError, sitePath } from "./Runner.ts"
import type { RecordedStep, PlayedRun } from "./Runner.ts"

const fail = (message: string) => new ScriptError({ message, notApplicable: false })

export const replayDemo = (
  env: EnvironmentShape,
  task: { readonly taskId: string; readonly startUrl: string; readonly siteSeed: number },
  steps: ReadonlyArray<DemoStep>
) =>
  Effect.gen(function* () {
    let obs = yield* env.reset(task)
    if (obs.observation.error !== null) return yield* fail(`reset: ${obs.observation.error}`)
    const initial = obs.observation
    const recorded: Array<RecordedStep> = []
    let answer: string | null = null
    let status: "complete" | "infeasible" | null = null
    for (const [i, step] of steps.entries()) {
      const where = `step ${i + 1} (${step.action.kind})`
      let action: Action = step.action
      const before = sitePath(obs.observation.url)
      if (before !== step.urlBefore) return yield* fail(`${where}: on ${before}, recorded on ${step.urlBefore}`)
      if ("target" in action && action.target !== null) {
        const t = action.target
        const element = obs.elements.find((e) => e.id === t.elementId)
        if (element === undefined || element.role !== t.role || element.name !== t.name) {
          const found = element === undefined ? "nothing" : `${element.role} "${element.name}"`
          return yield* fail(`${where}: recorded ${t.role} "${t.name}" as ${t.elementId}, found ${found} on ${before}`)
        }
      }
      // A recorded navigation names the recording server's origin; the path is what it meant.
      if (action.kind === "navigate")
        action = { ...action, url: new URL(sitePath(action.url) ?? "/", obs.observation.url ?? undefined).href }
      obs = yield* env.step(action)
      const ends = action.kind === "answer" || action.kind === "status"
      if (obs.observation.error !== null && !ends) return yield* fail(`${where}: ${obs.observation.error}`)
      const after = ends ? before : sitePath(obs.observation.url)
      if (after !== step.urlAfter) return yield* fail(`${where}: reached ${after}, recorded ${step.urlAfter}`)
      if (action.kind === "answer") answer = action.text
      if (action.kind === "status") status = action.status
      recorded.push({ action, urlBefore: before, urlAfter: after, observation: obs.observation })
    }
    return { initial, steps: recorded, finalUrl: sitePath(obs.observation.url), answer, status } satisfies PlayedRun
  })
