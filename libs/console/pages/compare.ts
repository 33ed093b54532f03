/**
 * `/compare?a=R1&b=R2`: two runs' figures side by side, each number with B − A beside it and
 * any row that differs marked, so a change of policy, rules or code shows as figures.
 */
import { Effect } from "effect"
import type { Html } from "../Html.ts"
import { html } from "../Html.ts"
import type { Page } from "../Page.ts"
import type { RunFigures } from "./figures.ts"
import { runFigures } from "./figures.ts"
import { notFound, page, runHref, VERDICTS, when } from "./shared.ts"

type Figure = { readonly label: string; readonly a: number | string; readonly b: number | string }

const share = (f: RunFigures): string => (f.trajectories === 0 ? "—" : `${Math.round((100 * f.verdicts.pass) / f.trajectories)}%`)

const figuresOf = (a: RunFigures, b: RunFigures): ReadonlyArray<Figure> => {
  const pair = (label: string, get: (f: RunFigures) => number | string): Figure => ({ label, a: get(a), b: get(b) })
  const tasks = [...new Set([...a.pathsByTask.keys(), ...b.pathsByTask.keys()])].sort()
  const formats = [...new Set([...Object.keys(a.records), ...Object.keys(b.records)])].sort()
  return [
    pair("command", (f) => f.run?.command ?? "?"),
    pair("app", (f) => f.apps.join(", ")),
    pair("seed", (f) => f.run?.seed ?? "?"),
    pair("started", (f) => when(f.run?.started_at)),
    pair("status", (f) => f.status),
    pair("rounds", (f) => f.rounds.length),
    pair("trajectories", (f) => f.trajectories),
    ...VERDICTS.map((v) => pair(v, (f) => f.verdicts[v])),
    pair("unverified", (f) => f.verdicts.unverified),
    pair("pass share", share),
    pair("tasks", (f) => f.tasks.length),
    pair("extrapolated tasks", (f) => f.extrapolated),
    pair("paths by meaning", (f) => f.paths),
    ...tasks.map((t) => pair(`paths by meaning: ${t}`, (f) => f.pathsByTask.get(t) ?? 0)),
    pair("dataset records", (f) => f.recordTotal),
    ...formats.map((k) => pair(`records: ${k}`, (f) => f.records[k] ?? 0))
  ]
}

const difference = (x: Figure): Html => {
  if (typeof x.a === "number" && typeof x.b === "number") {
    const d = x.b - x.a
    return d === 0 ? html`<span class="muted">=</span>` : html`<strong>${d > 0 ? `+${d}` : String(d)}</strong>`
  }
  return x.a === x.b ? html`<span class="muted">=</span>` : html`<strong>differs</strong>`
}

export const comparePage: Page = (ctx, _params, query) =>
  Effect.gen(function* () {
    const a = query.get("a") ?? ""
    const b = query.get("b") ?? ""
    if (a === "" || b === "") return notFound("compare needs two runs: /compare?a=RUN&b=RUN")
    const figures = yield* runFigures(ctx.readModels, [a, b])
    const fa = figures.find((f) => f.runId === a)
    const fb = figures.find((f) => f.runId === b)
    if (fa === undefined) return notFound(`no run ${a} in the read models`)
    if (fb === undefined) return notFound(`no run ${b} in the read models`)
    const rows = figuresOf(fa, fb).map(
      (x) =>
        html`<tr${x.a === x.b ? "" : html` class="current"`}><th>${x.label}</th><td>${x.a}</td><td>${x.b}</td><td>${difference(x)}</td></tr>`
    )
    const body = html`<h1>Compare runs</h1>
<table>
  <thead><tr><th></th><th>A: <a href="${runHref(a)}">${a}</a></th><th>B: <a href="${runHref(b)}">${b}</a></th><th>B − A</th></tr></thead>
  <tbody>${rows}</tbody>
</table>`
    return page(`Compare ${a} and ${b}`, body)
  })
