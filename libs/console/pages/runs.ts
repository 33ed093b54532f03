/**
 * `/`: every run the read models hold, newest first, with its figures, and a form that
 * picks two of them for `/compare` (two radio groups, so no script is needed).
 */
import { Effect } from "effect"
import type { Html } from "../Html.ts"
import { html } from "../Html.ts"
import type { Page } from "../Page.ts"
import type { RunFigures } from "./figures.ts"
import { runFigures } from "./figures.ts"
import { badge, page, plural, runHref, VERDICTS, when } from "./shared.ts"

const empty = html`<h1>Runs</h1>
<p>Nothing yet: the log holds no run.</p>
<p>Start one with <code>bun core demo</code> (one round on six bundled tasks) or <code>bun core run</code> (see <code>bun core run --help</code>); this page follows the log and shows it as it comes.</p>`

export const verdictCells = (f: RunFigures): Html =>
  html`${VERDICTS.map((v) => html`<td>${f.verdicts[v] > 0 ? html`${badge(v)} ${f.verdicts[v]}` : html`<span class="muted">0</span>`}</td>`)}`

/** Paths by meaning: the total, and per task in a disclosure. */
export const pathsCell = (f: RunFigures): Html => {
  if (f.pathsByTask.size === 0) return html`<span class="muted">no graph</span>`
  const rows = [...f.pathsByTask].map(([task, n]) => html`<li>${task}: ${n}</li>`)
  return html`<details><summary>${f.paths} over ${plural(f.pathsByTask.size, "task")}</summary><ul>${rows}</ul></details>`
}

const recordsCell = (f: RunFigures): Html =>
  f.recordTotal === 0
    ? html`<span class="muted">none</span>`
    : html`${f.recordTotal} <span class="muted">(${Object.entries(f.records)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")})</span>`

const row = (f: RunFigures, i: number): Html => html`<tr>
  <td><input type="radio" name="a" value="${f.runId}" aria-label="compare ${f.runId} as A"${i === 1 ? html` checked` : ""}>
      <input type="radio" name="b" value="${f.runId}" aria-label="compare ${f.runId} as B"${i === 0 ? html` checked` : ""}></td>
  <td><a href="${runHref(f.runId)}">${f.runId}</a></td>
  <td>${f.run?.command ?? "?"}${f.apps.length > 0 ? html` <span class="muted">${f.apps.join(", ")}</span>` : ""}</td>
  <td>${f.rounds.length}</td>
  <td>${f.status}</td>
  <td>${when(f.run?.started_at)}</td>
  ${verdictCells(f)}
  <td>${f.verdicts.unverified}</td>
  <td>${f.tasks.length}</td>
  <td>${pathsCell(f)}</td>
  <td>${recordsCell(f)}</td>
</tr>`

export const runsPage: Page = (ctx) =>
  Effect.gen(function* () {
    const figures = yield* runFigures(ctx.readModels)
    if (figures.length === 0) return page("Runs", empty, { runId: null })
    const body = html`<h1>Runs</h1>
<p class="muted">${plural(figures.length, "run")}, newest first. Pick A and B and compare them, or open a run.</p>
<form method="get" action="/compare">
<table>
  <thead><tr><th>A B</th><th>run</th><th>command / app</th><th>rounds</th><th>status</th><th>started</th>
    ${VERDICTS.map((v) => html`<th>${v}</th>`)}<th>unverified</th><th>tasks</th><th>paths by meaning</th><th>records</th></tr></thead>
  <tbody>${figures.map(row)}</tbody>
</table>
${figures.length >= 2 ? html`<p><button type="submit">compare A with B</button></p>` : ""}
</form>`
    return page("Runs", body, { runId: null })
  })
