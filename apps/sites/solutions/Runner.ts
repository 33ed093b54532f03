/**
 * Runs a scripted solution through the real web environment and records it. A script is
 * a list of steps whose targets are found at run time by role + accessible name (a regex)
 * in the latest observation's elements — never by element id — so the same script works
 * on every seed. `toDemoFolder` writes a run as a core-demo v2 folder (docs/demos.md)
 * through `writeDemoFolder` of @core/demos, the same writer the recorder uses.
 */
import { Effect, Schema } from "effect"
import { writeDemoFolder } from "@core/demos"
import { sitePath } from "@core/domain"
import { targetOf } from "@core/environment"
import type { ElementInfo, EnvTask, EnvironmentShape, FullObservation } from "@core/environment"
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
  /** Scrolling the page, as a person looking around does: nothing a checker reads changes. */
  | { readonly kind: "scroll"; readonly direction: "up" | "down" }
  | { readonly kind: "wait"; readonly ms: number }
  | { readonly kind: "back" }
  /**
   * A look elsewhere and back: clicks the visible same-site link at `pick` (in [0, 1)) of
   * those leading to another page, then goes back. Only where no typed-in form state is
   * pending: going back reloads the page (the browser runs without a back-forward cache).
   * Never to `avoid`, the next step's own target: that would be the step itself, done early.
   */
  | { readonly kind: "detour"; readonly pick: number; readonly avoid?: Find }
  /**
   * A step decided on the page at run time (a random policy's move, another option of a
   * select): null skips it. Like a policy, the run goes on after an error observation.
   */
  | { readonly kind: "choose"; readonly choose: (obs: FullObservation) => Action | null }

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

/** A run as played: with the screen it started on, which its demo records. */
export interface PlayedRun extends ScriptRun {
  /** The reset's observation, before step 0: what a trajectory starts from. */
  readonly initial: Observation
}

/** A run that may have stopped early: the steps recorded up to the break, and why it broke. */
export interface PartialRun extends PlayedRun {
  /** The site episode the environment opened for a `site` + `siteSeed` task (its tenant, for the checker); null when started from a URL. */
  readonly episode: string | null
  readonly error: ScriptError | null
}

/** A script that could not be carried out; `notApplicable` when the path family does not apply to this instance. */
export class ScriptError extends Schema.TaggedError<ScriptError>()("ScriptError", {
  message: Schema.String,
  notApplicable: Schema.Boolean
}) {}

/** Path + query of a URL: runs on different server ports record the same URLs (the LF trajectory's rule). */
export { sitePath }

const matches = (elements: ReadonlyArray<ElementInfo>, find: Find): ReadonlyArray<ElementInfo> => {
  const start = find.after === undefined ? 0 : elements.findIndex((e) => find.after!.test(e.name)) + 1
  if (find.after !== undefined && start === 0) return []
  return elements.slice(start).filter((e) => e.role === find.role && e.visible && find.name.test(e.name))
}

export const resolve = (elements: ReadonlyArray<ElementInfo>, find: Find): ElementInfo | undefined => {
  const found = matches(elements, find)
  return find.last === true ? found.at(-1) : found[0]
}

/** Link name → its target (path) as the page's aria snapshot lists it (`/url:` under the link); the first link of a name wins. */
export const linkTargets = (aria: string): ReadonlyMap<string, string> => {
  const out = new Map<string, string>()
  const lines = aria.split("\n")
  const indent = (line: string) => line.length - line.trimStart().length
  for (const [i, line] of lines.entries()) {
    const quoted = line.match(/^\s*-\s*'?link "((?:[^"\\]|\\.)*)"/)?.[1]
    if (quoted === undefined) continue
    const name = quoted.replace(/\\(.)/g, "$1")
    for (let j = i + 1; j < lines.length && indent(lines[j]!) > indent(line); j++) {
      const url = lines[j]!.match(/^\s*-\s*\/url:\s*(.+?)\s*$/)?.[1]
      if (url === undefined) continue
      if (!out.has(name)) out.set(name, url.replace(/^(["'])(.*)\1$/, "$2"))
      break
    }
  }
  return out
}

/** The site's path prefix (`/shop/`) of a page URL; null off any site. */
export const sitePrefix = (url: string | null): string | null => sitePath(url)?.match(/^\/[a-z0-9-]+\//)?.[0] ?? null

/** Links a detour may take: same site, another page, none that ends the session or destroys something. */
const detourLinks = (obs: FullObservation, avoid: Find | undefined): ReadonlyArray<ElementInfo> => {
  const prefix = sitePrefix(obs.observation.url)
  const here = sitePath(obs.observation.url)
  const targets = linkTargets(obs.aria)
  const next = avoid === undefined ? [] : matches(obs.elements, avoid)
  return obs.elements.filter((e) => {
    if (next.includes(e)) return false
    const url = targets.get(e.name)
    return (
      e.role === "link" &&
      e.visible &&
      e.enabled &&
      e.name !== "" &&
      prefix !== null &&
      url !== undefined &&
      url.startsWith(prefix) &&
      url !== here &&
      !/sign ?out|log ?out|delete|remove|cancel/i.test(e.name)
    )
  })
}

/** Runs `script` on a fresh episode at `startUrl`, recording every step. */
export const runScript = (env: EnvironmentShape, taskId: string, startUrl: string, siteSeed: number, script: ReadonlyArray<Step>) =>
  runScriptPartial(env, { taskId, startUrl, siteSeed }, script).pipe(
    Effect.flatMap((run) =>
      run.error === null
        ? Effect.succeed({
            initial: run.initial,
            steps: run.steps,
            finalUrl: run.finalUrl,
            answer: run.answer,
            status: run.status
          } satisfies PlayedRun)
        : Effect.fail(run.error)
    )
  )

/**
 * Runs `script` like `runScript`, but a script that breaks still returns what it recorded up
 * to the break (with `error`): a broken run is a trajectory too, for evaluating label functions.
 */
export const runScriptPartial = (env: EnvironmentShape, task: EnvTask, script: ReadonlyArray<Step>) =>
  Effect.gen(function* () {
    let obs = yield* env.reset(task)
    const { observation: initial, episode } = obs
    const steps: Array<RecordedStep> = []
    let answer: string | null = null
    let status: "complete" | "infeasible" | null = null
    const act = (action: Action, tolerateError = false) =>
      Effect.gen(function* () {
        const urlBefore = sitePath(obs.observation.url)
        obs = yield* env.step(action)
        const ends = action.kind === "answer" || action.kind === "status"
        // answer / status end the episode without a browser action: the page is where it was.
        const urlAfter = ends ? urlBefore : sitePath(obs.observation.url)
        if (obs.observation.error !== null && !ends && !tolerateError) {
          return yield* new ScriptError({
            message: `step ${steps.length + 1} (${action.kind}): ${obs.observation.error}`,
            notApplicable: false
          })
        }
        // The environment seals a password typed: the demo records it as the environment says.
        steps.push({ action: obs.performed ?? action, urlBefore, urlAfter, observation: obs.observation })
      })
    const find = (f: Find) =>
      Effect.gen(function* () {
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
    const detour = (pick: number, avoid: Find | undefined) =>
      Effect.gen(function* () {
        const links = detourLinks(obs, avoid)
        if (links.length === 0) return
        const from = sitePath(obs.observation.url)
        yield* act({ kind: "click", target: targetOf(links[Math.min(links.length - 1, Math.floor(pick * links.length))]!) })
        if (sitePath(obs.observation.url) === from) return
        yield* act({ kind: "back" })
        const back = sitePath(obs.observation.url)
        if (back !== from)
          return yield* new ScriptError({
            message: `step ${steps.length}: the detour went back to ${back}, not to ${from}`,
            notApplicable: false
          })
      })
    const run = Effect.gen(function* () {
      if (obs.observation.error !== null)
        return yield* new ScriptError({ message: `reset: ${obs.observation.error}`, notApplicable: false })
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
          case "scroll":
            yield* act({ kind: "scroll", target: null, direction: s.direction })
            break
          case "wait":
            yield* act({ kind: "wait", ms: s.ms })
            break
          case "back":
            yield* act({ kind: "back" })
            break
          case "detour":
            yield* detour(s.pick, s.avoid)
            break
          case "choose": {
            const action = s.choose(obs)
            if (action === null) break
            if (action.kind === "answer") answer = action.text
            if (action.kind === "status") status = action.status
            yield* act(action, true)
            break
          }
        }
      }
    })
    const error = yield* run.pipe(
      Effect.as(null),
      Effect.catchTag("ScriptError", (e) => Effect.succeed(e))
    )
    return { steps, finalUrl: sitePath(obs.observation.url), answer, status, initial, episode, error } satisfies PartialRun
  })

/**
 * Writes `run` as a core-demo version 2 folder in `dir` (see `writeDemoFolder`, libs/demos),
 * with the screen the episode started on as `initial`: a dataset record of the first step
 * then shows the page its action acts on. Returns the demo.json path.
 */
export const toDemoFolder = (run: PlayedRun, dir: string, ids: { readonly demoId: string; readonly taskId: string }) =>
  writeDemoFolder(run.steps, dir, {
    ...ids,
    recordedWith: "script",
    initial: { screenshot: run.initial.screenshot, elements: run.initial.elements, aria: run.initial.aria }
  })
