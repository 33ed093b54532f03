/**
 * `/runs/:run`: one run from the read models — each round's verdicts, the tasks with their
 * paths counted by meaning, the tasks extrapolated from its trajectories with their lineage,
 * the dataset seals, and every trajectory, filterable by verdict (`?outcome=pass`).
 */
import { Effect } from "effect"
import { distinctPaths } from "@core/domain"
import type { StrategyGraph } from "@core/domain"
import type { Html } from "../Html.ts"
import { html } from "../Html.ts"
import type { Page } from "../Page.ts"
import type { LineageRow, RoundRow, SealRow, TaskRow, TrajectoryRow, VerdictCount } from "../Queries.ts"
import {
  extrapolatedTasks,
  graphsOfRuns,
  lineageOf,
  parseJson,
  roundsOf,
  runKnown,
  runRow,
  sealsOf,
  tasksByIds,
  trajectoriesOf,
  verdictCounts
} from "../Queries.ts"
import { statusOf } from "./figures.ts"
import {
  badge,
  datasetHref,
  isVerdict,
  notFound,
  page,
  plural,
  runHref,
  short,
  taskHref,
  trajectoryHref,
  trajectoryLink,
  VERDICTS,
  when
} from "./shared.ts"

const tallyCells = (counts: ReadonlyArray<VerdictCount>): Html => {
  const of = (v: string | null) => counts.filter((c) => c.verdict === v).reduce((k, c) => k + c.n, 0)
  return html`${VERDICTS.map((v) => html`<td>${of(v)}</td>`)}<td>${of(null)}</td>`
}

const verdictHeads = html`${VERDICTS.map((v) => html`<th>${badge(v)}</th>`)}<th>unverified</th>`

const roundsTable = (rounds: ReadonlyArray<RoundRow>, counts: ReadonlyArray<VerdictCount>): Html =>
  rounds.length === 0
    ? html`<p class="muted">No round started yet.</p>`
    : html`<table><thead><tr><th>round</th><th>status</th><th>policy</th><th>tasks</th><th>started</th><th>completed</th>${verdictHeads}<th>trained</th></tr></thead>
<tbody>${rounds.map(
        (r) => html`<tr><td>${r.round}</td><td>${r.status ?? "?"}</td><td>${r.policy ?? ""}</td>
<td>${parseJson<ReadonlyArray<string>>(r.task_ids, []).length}</td><td>${when(r.started_at)}</td><td>${when(r.completed_at)}</td>
${tallyCells(counts.filter((c) => c.round === r.round))}<td>${r.checkpoint === null ? "" : html`${r.trainer ?? ""} → ${r.checkpoint}`}</td></tr>`
      )}</tbody></table>`

const tasksTable = (
  runId: string,
  taskIds: ReadonlyArray<string>,
  tasks: ReadonlyArray<TaskRow>,
  graphs: ReadonlyMap<string, StrategyGraph>,
  counts: ReadonlyArray<VerdictCount>
): Html =>
  html`<table><thead><tr><th>task</th><th>instruction</th><th>origin</th><th>paths</th><th>by meaning</th>${verdictHeads}</tr></thead>
<tbody>${taskIds.map((id) => {
    const t = tasks.find((x) => x.task_id === id)
    const g = graphs.get(id)
    return html`<tr><td><a href="${taskHref(runId, id)}">${id}</a></td><td>${t?.instruction ?? ""}</td><td>${t?.origin ?? "?"}</td>
<td>${g?.paths.length ?? 0}</td><td>${g === undefined ? 0 : distinctPaths(g)}</td>${tallyCells(counts.filter((c) => c.task_id === id))}</tr>`
  })}</tbody></table>`

const extrapolatedTable = (runId: string, tasks: ReadonlyArray<TaskRow>, lineage: ReadonlyArray<LineageRow>): Html =>
  tasks.length === 0
    ? html`<p class="muted">No task was extrapolated in this run.</p>`
    : html`<table><thead><tr><th>parent trajectories</th><th></th><th>new task</th><th>instruction</th><th>generator</th><th>parent task</th><th>pseudo-demo</th></tr></thead>
<tbody>${tasks.map((t) => {
        const parents = lineage.filter((l) => l.child_id === t.task_id && l.relation === "derived-from").map((l) => l.parent_id)
        return html`<tr><td>${parents.map((p, i) => html`${i > 0 ? ", " : ""}${trajectoryLink(runId, p)}`)}</td><td>→</td>
<td><a href="${taskHref(runId, t.task_id)}">${t.task_id}</a></td><td>${t.instruction ?? ""}</td><td>${t.generator ?? "?"}</td>
<td>${t.parent_task_id === null ? "" : html`<a href="${taskHref(runId, t.parent_task_id)}">${t.parent_task_id}</a>`}</td>
<td>${t.pseudo_demo_trajectory_id === null ? "" : trajectoryLink(runId, t.pseudo_demo_trajectory_id)}</td></tr>`
      })}</tbody></table>`

const sealsTable = (runId: string, seals: ReadonlyArray<SealRow>): Html =>
  seals.length === 0
    ? html`<p class="muted">No dataset sealed yet.</p>`
    : html`<table><thead><tr><th>round</th><th>records</th><th>by format</th><th>content digest</th><th>sealed</th></tr></thead>
<tbody>${seals.map((s) => {
        const counts = parseJson<Record<string, number>>(s.counts, {})
        return html`<tr><td><a href="${datasetHref(runId, { round: s.round })}">${s.round}</a></td><td>${s.record_count ?? 0}</td>
<td>${Object.entries(counts).map(([k, v], i) => html`${i > 0 ? ", " : ""}<a href="${datasetHref(runId, { round: s.round, format: k })}">${k} ${v}</a>`)}</td>
<td><code>${short(s.content_digest ?? "", 16)}</code></td><td>${when(s.sealed_at)}</td></tr>`
      })}</tbody></table>`

const outcomeLinks = (runId: string, outcome: string | undefined, counts: ReadonlyArray<VerdictCount>): Html => {
  const total = counts.reduce((k, c) => k + c.n, 0)
  const of = (v: string) => counts.filter((c) => c.verdict === v).reduce((k, c) => k + c.n, 0)
  const link = (label: Html, href: string, current: boolean) =>
    current ? html`<strong>${label}</strong>` : html`<a href="${href}">${label}</a>`
  return html`<p>${link(html`all ${total}`, `${runHref(runId)}#trajectories`, outcome === undefined)}
${VERDICTS.map((v) => html` · ${link(html`${v} ${of(v)}`, `${runHref(runId)}?outcome=${v}#trajectories`, outcome === v)}`)}</p>`
}

const trajectoriesTable = (runId: string, rows: ReadonlyArray<TrajectoryRow>): Html =>
  rows.length === 0
    ? html`<p class="muted">No trajectory.</p>`
    : html`<table><thead><tr><th>trajectory</th><th>task</th><th>round</th><th>sample</th><th>policy</th><th>steps</th><th>outcome</th><th>verdict</th></tr></thead>
<tbody>${rows.map(
        (t) => html`<tr><td><a href="${trajectoryHref(runId, t.trajectory_id)}">${t.trajectory_id}</a></td>
<td>${t.task_id === null ? "" : html`<a href="${taskHref(runId, t.task_id)}">${t.task_id}</a>`}</td><td>${t.round ?? ""}</td><td>${t.sample ?? ""}</td>
<td>${t.policy ?? ""}</td><td>${t.step_count ?? ""}</td><td>${t.outcome ?? ""}${t.infra_error === null ? "" : html` <span class="muted">${t.infra_error}</span>`}</td>
<td>${badge(t.verdict)}</td></tr>`
      )}</tbody></table>`

export const runPage: Page = (ctx, params, query) =>
  Effect.gen(function* () {
    const runId = params.run ?? ""
    const rm = ctx.readModels
    if (!(yield* runKnown(rm, runId))) return notFound(`no run ${runId} in the read models`)
    const run = yield* runRow(rm, runId)
    const rounds = yield* roundsOf(rm, runId)
    const counts = yield* verdictCounts(rm, runId)
    const graphs = (yield* graphsOfRuns(rm, runId)).get(runId) ?? new Map<string, StrategyGraph>()
    const extrapolated = yield* extrapolatedTasks(rm, runId)
    const taskIds = [
      ...new Set([
        ...rounds.flatMap((r) => parseJson<ReadonlyArray<string>>(r.task_ids, [])),
        ...counts.flatMap((c) => (c.task_id === null ? [] : [c.task_id])),
        ...graphs.keys(),
        ...extrapolated.map((t) => t.task_id)
      ])
    ].sort()
    const tasks = yield* tasksByIds(rm, taskIds)
    const lineage = yield* lineageOf(rm, runId, "task")
    const seals = yield* sealsOf(rm, runId)
    const wanted = query.get("outcome") ?? undefined
    const outcome = isVerdict(wanted) ? wanted : undefined
    const rows = yield* trajectoriesOf(rm, runId, outcome === undefined ? {} : { verdict: outcome })
    const body = html`<h1>Run ${runId}</h1>
<p>${run?.command ?? "?"} · seed ${run?.seed ?? "?"} · started ${when(run?.started_at)} · ${statusOf(rounds)}${
      run?.code_commit ? html` · code <code>${short(run.code_commit)}</code>${run.code_dirty === 1 ? " (dirty)" : ""}` : ""
    } · <a href="${datasetHref(runId)}">dataset</a></p>
<h2>Rounds</h2>${roundsTable(rounds, counts)}
<h2>Tasks</h2><p class="muted">${plural(taskIds.length, "task")}; paths counted by meaning (their label functions in order).</p>
${tasksTable(runId, taskIds, tasks, graphs, counts)}
<h2>Extrapolated tasks</h2>${extrapolatedTable(runId, extrapolated, lineage)}
<h2>Dataset seals</h2>${sealsTable(runId, seals)}
<h2 id="trajectories">Trajectories</h2>${outcomeLinks(runId, outcome, counts)}
${wanted !== undefined && outcome === undefined ? html`<p class="muted">Unknown outcome ${wanted}: showing every trajectory.</p>` : ""}
${trajectoriesTable(runId, rows)}`
    return page(`Run ${runId}`, body, { runId })
  })
