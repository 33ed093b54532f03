/**
 * `/runs/:run/tasks/:task`: a task's strategy graph in a run, drawn (GraphSvg), then each
 * node — its key step, its label function's code, where it came from (a demo, the expansion
 * of a trajectory, or an extrapolation's pseudo-demo) — and each path with the trajectories
 * that passed along it. The graph is the read model's (the final one); provenance and code
 * come from the run's log.
 */
import { Effect } from "effect"
import { pathSignature } from "@core/domain"
import type { StrategyGraph } from "@core/domain"
import type { CoreEvent } from "@core/events"
import { END, graphSvg, START } from "../GraphSvg.ts"
import type { SvgEdge } from "../GraphSvg.ts"
import type { Html } from "../Html.ts"
import { html } from "../Html.ts"
import type { Page } from "../Page.ts"
import type { NodeRow, PathRow, TaskRow, TrajectoryRow } from "../Queries.ts"
import { graphRows, graphsFromRows, parseJson, roundsOf, runKnown, tasksByIds, trajectoriesOf } from "../Queries.ts"
import { badge, demoHref, lfHref, notFound, page, plural, runHref, short, taskHref, trajectoryHref, trajectoryLink } from "./shared.ts"

type Inferred = Extract<CoreEvent, { type: "LabelFunctionInferred" }>

const inferenceOf = (events: ReadonlyArray<CoreEvent>, n: NodeRow): Inferred | undefined => {
  const all = events.filter((e): e is Inferred => e.type === "LabelFunctionInferred" && e.data.lfId === n.lf_id)
  return all.findLast((e) => e.data.source.kind === n.source_kind && e.data.source.id === n.source_id) ?? all.at(-1)
}

const origin = (runId: string, n: NodeRow, task: TaskRow | undefined, keyStep: number | null): Html => {
  const at = keyStep === null ? "" : `, key step ${keyStep}`
  const id = n.source_id ?? ""
  if (n.source_kind === "demo") return html`from demo <a href="${demoHref(runId, id)}">${id}</a>${at}`
  if (task?.origin === "extrapolated" && task.pseudo_demo_trajectory_id === id)
    return html`extrapolation: the pseudo-demo ${trajectoryLink(runId, id)}${at} of task ${
      task.parent_task_id === null ? "?" : html`<a href="${taskHref(runId, task.parent_task_id)}">${task.parent_task_id}</a>`
    } (${task.generator ?? "?"})`
  return html`expansion (${n.how ?? "?"}) of trajectory ${trajectoryLink(runId, id)}${at}`
}

const nodeSection = (runId: string, events: ReadonlyArray<CoreEvent>, n: NodeRow, task: TaskRow | undefined): Html => {
  const inferred = inferenceOf(events, n)
  const key = [
    n.action_kind,
    n.role,
    n.name === null ? null : JSON.stringify(n.name),
    n.value === null ? null : `= ${n.value}`,
    n.url_pattern
  ]
    .filter((x) => x !== null && x !== "")
    .join(" ")
  return html`<section id="node-${n.node_id}">
<h3><code>${n.node_id}</code> ${n.description ?? ""}</h3>
<p>Key step: ${inferred?.data.description ?? n.description ?? "?"} <span class="muted">(${key})</span></p>
<p>Origin: ${origin(runId, n, task, inferred?.data.keyStepIndex ?? null)}</p>
<p>Label function ${n.lf_id === null ? "?" : html`<a href="${lfHref(runId, n.lf_id)}"><code>${short(n.lf_id)}</code></a>`}${
    inferred === undefined ? "" : html` <span class="muted">(${inferred.data.inference.method}, ${inferred.data.inference.evidence})</span>`
  }</p>
${inferred === undefined ? html`<p class="muted">Its code is not in this run's log.</p>` : html`<pre class="code">${inferred.data.code}</pre>`}
</section>`
}

const samePath = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean => a.length === b.length && a.every((x, i) => x === b[i])

const pathsTable = (
  runId: string,
  graph: StrategyGraph,
  paths: ReadonlyArray<PathRow>,
  nodes: ReadonlyArray<NodeRow>,
  passed: ReadonlyArray<TrajectoryRow>
): Html => {
  const firstOfMeaning = new Map<string, string>()
  const rows = paths.map((p) => {
    const ids = parseJson<ReadonlyArray<string>>(p.node_ids, [])
    const signature = pathSignature(graph, ids)
    const first = firstOfMeaning.get(signature)
    if (first === undefined) firstOfMeaning.set(signature, p.path_id)
    const along = passed.filter((t) => samePath(parseJson<ReadonlyArray<string>>(t.path, []), ids))
    const steps = ids.map((id) => html` → <a href="#node-${id}">${nodes.find((n) => n.node_id === id)?.description ?? id}</a>`)
    return html`<tr><td><code>${p.path_id}</code>${first === undefined ? "" : html`<br><span class="muted">same meaning as ${first}</span>`}</td>
<td>start${steps} → end</td>
<td>${p.source_kind === "demo" ? html`demo <a href="${demoHref(runId, p.source_id ?? "")}">${p.source_id}</a>` : html`trajectory ${trajectoryLink(runId, p.source_id ?? "")}`}</td>
<td>${along.length === 0 ? html`<span class="muted">none</span>` : along.map((t, i) => html`${i > 0 ? ", " : ""}<a href="${trajectoryHref(runId, t.trajectory_id)}">${t.trajectory_id}</a>`)}</td></tr>`
  })
  return html`<p class="muted">${plural(paths.length, "path")}, ${plural(firstOfMeaning.size, "meaning")} (label functions in order).</p>
<table><thead><tr><th>path</th><th>nodes</th><th>from</th><th>trajectories that passed along it</th></tr></thead><tbody>${rows}</tbody></table>`
}

const edgesOf = (paths: ReadonlyArray<PathRow>): ReadonlyArray<SvgEdge> => {
  const seen = new Map<string, SvgEdge>()
  for (const p of paths) {
    const hops = [START, ...parseJson<ReadonlyArray<string>>(p.node_ids, []), END]
    for (let i = 1; i < hops.length; i++) seen.set(`${hops[i - 1]}\u0000${hops[i]}`, { from: hops[i - 1]!, to: hops[i]! })
  }
  return [...seen.values()]
}

export const taskPage: Page = (ctx, params) =>
  Effect.gen(function* () {
    const runId = params.run ?? ""
    const taskId = params.task ?? ""
    const rm = ctx.readModels
    if (!(yield* runKnown(rm, runId))) return notFound(`no run ${runId} in the read models`)
    const rows = yield* graphRows(rm, runId, taskId)
    const trajectories = yield* trajectoriesOf(rm, runId, { taskId })
    const task = (yield* tasksByIds(rm, [taskId]))[0]
    const played = (yield* roundsOf(rm, runId)).some((r) => parseJson<ReadonlyArray<string>>(r.task_ids, []).includes(taskId))
    const extrapolatedHere = task?.origin === "extrapolated" && task.run_id === runId
    if (rows.nodes.length === 0 && trajectories.length === 0 && !played && !extrapolatedHere)
      return notFound(`run ${runId} has no task ${taskId}`)
    const events = yield* ctx.runLog(runId)
    const graph = graphsFromRows(rows).get(runId)?.get(taskId) ?? { taskId, nodes: [], paths: [] }
    const svg = graphSvg({
      nodes: rows.nodes.map((n) => ({
        id: n.node_id,
        label: n.description ?? n.node_id,
        detail: `${n.action_kind ?? "?"} · ${n.how ?? "?"}`
      })),
      edges: edgesOf(rows.paths)
    })
    const passed = trajectories.filter((t) => t.verdict === "pass")
    const body = html`<h1>Task ${taskId}</h1>
<p>${task?.instruction ?? html`<span class="muted">no instruction registered</span>`}</p>
<p class="muted">${task?.origin ?? "?"}${task?.site ? ` · ${task.site}` : ""}${
      task?.origin === "extrapolated"
        ? html` · ${task.generator ?? "?"} from task ${task.parent_task_id === null ? "?" : html`<a href="${taskHref(runId, task.parent_task_id)}">${task.parent_task_id}</a>`}`
        : ""
    } · run <a href="${runHref(runId)}">${runId}</a></p>
<h2>Strategy graph</h2>
${rows.nodes.length === 0 ? html`<p class="muted">No graph yet: no label function was accepted for this task in this run.</p>` : svg}
<h2>Paths</h2>${rows.paths.length === 0 ? html`<p class="muted">No path.</p>` : pathsTable(runId, graph, rows.paths, rows.nodes, passed)}
<h2>Nodes</h2>${rows.nodes.map((n) => nodeSection(runId, events, n, task))}
<h2>Trajectories</h2>${
      trajectories.length === 0
        ? html`<p class="muted">None in this run.</p>`
        : html`<ul>${trajectories.map((t) => html`<li><a href="${trajectoryHref(runId, t.trajectory_id)}">${t.trajectory_id}</a> ${badge(t.verdict)}</li>`)}</ul>`
    }`
    return page(`Task ${taskId}`, body)
  })
