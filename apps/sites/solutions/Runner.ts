/**
 * Runs a scripted solution through the real web environment and records it. A script is
 * a list of steps whose targets are found at run time by role + accessible name (a regex)
 * in the latest observation's elements — never by element id — so the same script works
 * on every seed. `toDemoFolder` writes a run as a core-demo v1 folder (libs/demos/README.md)
 * through `writeDemoFolder` of @core/demos, the same writer the recorder uses.
 */
import { Effect, Schema } from "effect"
import { writeDemoFolder } from "@core/demos"
import { targetOf } from "@core/env-web"
import type { ElementInfo, EnvironmentShape, FullObservation } from "@core/env-web"
import type { Action, Observation } from "@core/events"

/** How a step finds its element: role, accessible name, optionally only after an anchor element, the last match, or paging. */
export interface Find {
  readonly role: string
  readonly name: RegExp
  /** Only elements after the first one whose name matches (e.g. the results after "Apply filters"). */
  readonly after?: RegExp
  /** Take the last match instead of the first (e.g. the breadcrumb's category link). */
  readonly last?: boolean
  /** When absent, click the link with this name (e.g. "Next page") and look again, up to 10 times. */
  readonly pageVia?: RegExp
  /** When absent, this path family does not apply to the instance (e.g. not in the Top rated list). */
  readonly requiredForFamily?: boolean
}

export type Step =
  | { readonly kind: "click"; readonly find: Find }
  | { readonly kind: "type"; readonly find: Find; readonly text: string; readonly submit?: boolean }
  | { readonly kind: "select"; readonly find: Find; readonly value: string }
  | { readonly kind: "status"; readonly status: "complete" | "infeasible" }
  /** Typing a site path into the address bar; resolved against the current page's URL. */
  | { readonly kind: "navigate"; readonly path: string }
  /** The answer is read off the current page (its aria snapshot), as a person would. */
  | { readonly kind: "answer"; readonly read: (obs: FullObservation) => string }

export type Script = (params: Readonly<Record<string, string | number>>) => ReadonlyArray<Step>

/** One recorded step, as in a demo file but with observation blob hashes. */
export interface RecordedStep {
  readonly action: Action
  readonly urlBefore: string | null
  readonly urlAfter: string | null
  readonly observation: Observation
}

export interface ScriptRun {
  readonly steps: ReadonlyArray<RecordedStep>
  readonly finalUrl: string | null
  readonly answer: string | null
  readonly status: "complete" | "infeasible" | null
}

/** A script that could not be carried out; `notApplicable` when the path family does not apply to this instance. */
export class ScriptError extends Schema.TaggedError<ScriptError>()("ScriptError", {
  message: Schema.String,
  notApplicable: Schema.Boolean
}) {}

/** Path + query of a URL: runs on different server ports record the same URLs. */
export const sitePath = (url: string | null): string | null => {
  if (url === null) return null
  try {
    const u = new URL(url)
    return u.pathname + u.search
  } catch {
    return url
  }
}

const matches = (elements: ReadonlyArray<ElementInfo>, find: Find): ReadonlyArray<ElementInfo> => {
  const start = find.after === undefined ? 0 : elements.findIndex((e) => find.after!.test(e.name)) + 1
  if (find.after !== undefined && start === 0) return []
  return elements.slice(start).filter((e) => e.role === find.role && e.visible && find.name.test(e.name))
}

export const resolve = (elements: ReadonlyArray<ElementInfo>, find: Find): ElementInfo | undefined => {
  const found = matches(elements, find)
  return find.last === true ? found.at(-1) : found[0]
}

/** Runs `script` on a fresh episode at `startUrl`, recording every step. */
export const runScript = (env: EnvironmentShape, taskId: string, startUrl: string, siteSeed: number, script: ReadonlyArray<Step>) =>
  Effect.gen(function*() {
    let obs = yield* env.reset({ taskId, startUrl, siteSeed })
    if (obs.observation.error !== null) return yield* new ScriptError({ message: `reset: ${obs.observation.error}`, notApplicable: false })
    const steps: Array<RecordedStep> = []
    let answer: string | null = null
    let status: "complete" | "infeasible" | null = null
    const act = (action: Action) =>
      Effect.gen(function*() {
        const urlBefore = sitePath(obs.observation.url)
        obs = yield* env.step(action)
        if (obs.observation.error !== null && action.kind !== "answer" && action.kind !== "status") {
          return yield* new ScriptError({ message: `step ${steps.length + 1} (${action.kind}): ${obs.observation.error}`, notApplicable: false })
        }
        // answer / status end the episode without a browser action: the page is where it was.
        const urlAfter = action.kind === "answer" || action.kind === "status" ? urlBefore : sitePath(obs.observation.url)
        steps.push({ action, urlBefore, urlAfter, observation: obs.observation })
      })
    const find = (f: Find) =>
      Effect.gen(function*() {
        for (let page = 0; page <= 10; page++) {
          const element = resolve(obs.elements, f)
          if (element !== undefined) return element
          const next = f.pageVia === undefined ? undefined : resolve(obs.elements, { role: "link", name: f.pageVia })
          if (next === undefined) break
          yield* act({ kind: "click", target: targetOf(next) })
        }
        return yield* new ScriptError({
          message: `step ${steps.length + 1}: no ${f.role} named ${f.name} on ${sitePath(obs.observation.url)}`,
          notApplicable: f.requiredForFamily === true
        })
      })
    for (const s of script) {
      switch (s.kind) {
        case "click":
          yield* act({ kind: "click", target: targetOf(yield* find(s.find)) })
          break
        case "type":
          yield* act({ kind: "type", target: targetOf(yield* find(s.find)), text: s.text, submit: s.submit === true })
          break
        case "select":
          yield* act({ kind: "select", target: targetOf(yield* find(s.find)), value: s.value })
          break
        case "navigate":
          yield* act({ kind: "navigate", url: new URL(s.path, obs.observation.url ?? undefined).href })
          break
        case "answer":
          answer = s.read(obs)
          yield* act({ kind: "answer", text: answer })
          break
        case "status":
          status = s.status
          yield* act({ kind: "status", status: s.status })
          break
      }
    }
    return { steps, finalUrl: sitePath(obs.observation.url), answer, status } satisfies ScriptRun
  })

/** Writes `run` as a core-demo v1 folder in `dir` (see `writeDemoFolder`, libs/demos); returns the demo.json path. */
export const toDemoFolder = (run: ScriptRun, dir: string, ids: { readonly demoId: string; readonly taskId: string }) =>
  writeDemoFolder(run.steps, dir, { ...ids, recordedWith: "script" })
