/**
 * The console's pages by path. `:name` matches one path segment (a run, task, trajectory or
 * label-function id: letters, digits, `-`, `_`); anything else is not found.
 *
 * Client behaviour hangs on data attributes, so pages stay server-rendered HTML:
 * - `<div data-steps>` holding `<section class="step" id="step-N" data-step="N">`: the arrow
 *   keys move between steps (the current one has class `current`, the URL's hash follows);
 * - `<img data-plain="/blob/H" data-marked="/blob/M">` with a `<button data-toggle-marks>`:
 *   switches every such image between the plain and the set-of-marks screenshot;
 * - a page with `live` set gets `<body data-live="/live?run=R">`: on each new event the
 *   client re-fetches the page and replaces `<main>`, and `[data-live-status]` says so.
 */
import type { Page } from "./Page.ts"
import { comparePage } from "./pages/compare.ts"
import { datasetPage } from "./pages/dataset.ts"
import { demoPage } from "./pages/demo.ts"
import { labelFunctionPage } from "./pages/labelFunction.ts"
import { runPage } from "./pages/run.ts"
import { runsPage } from "./pages/runs.ts"
import { taskPage } from "./pages/task.ts"
import { trajectoryPage } from "./pages/trajectory.ts"
import { whatIfPage } from "./pages/whatIf.ts"

export interface Route {
  readonly method: "GET" | "POST"
  readonly pattern: string
  readonly page: Page
}

export const routes: ReadonlyArray<Route> = [
  { method: "GET", pattern: "/", page: runsPage },
  { method: "GET", pattern: "/compare", page: comparePage },
  { method: "GET", pattern: "/runs/:run", page: runPage },
  { method: "GET", pattern: "/runs/:run/tasks/:task", page: taskPage },
  { method: "GET", pattern: "/runs/:run/trajectories/:trajectory", page: trajectoryPage },
  { method: "GET", pattern: "/runs/:run/demos/:demo", page: demoPage },
  { method: "GET", pattern: "/runs/:run/lfs/:lf", page: labelFunctionPage },
  { method: "GET", pattern: "/runs/:run/datasets", page: datasetPage },
  // The form's fields (`lf`, `code`) arrive as params beside `run`; the server has checked the cookie and the Origin.
  { method: "POST", pattern: "/runs/:run/what-if", page: whatIfPage }
]

const SEGMENT = /^[A-Za-z0-9_-]+$/

/** The route and its params for a method and path, or null. */
export const matchRoute = (method: string, path: string): { readonly route: Route; readonly params: Record<string, string> } | null => {
  const parts = path.split("/").filter((p) => p !== "")
  for (const route of routes) {
    if (route.method !== method) continue
    const want = route.pattern.split("/").filter((p) => p !== "")
    if (want.length !== parts.length) continue
    const params: Record<string, string> = {}
    const ok = want.every((w, i) => {
      const got = parts[i]!
      if (!w.startsWith(":")) return w === got
      if (!SEGMENT.test(got)) return false
      params[w.slice(1)] = got
      return true
    })
    if (ok) return { route, params }
  }
  return null
}
