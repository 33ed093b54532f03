/**
 * `/runs/:run/trajectories/:trajectory`: why a trajectory got its label, step by step. The
 * evidence is `auditTrajectoryOf` — exactly what `bun core audit trajectory --json` prints,
 * embedded as JSON too (`<script type="application/json" id="audit">`) — and the steps are
 * its TrajectoryRecorded event's, each on the screen it acted on.
 */
import { Effect } from "effect"
import type { CoreEvent } from "@core/events"
import { actionText, auditTrajectoryOf } from "@core/pipeline"
import type { TrajectoryAudit } from "@core/pipeline"
import type { Html } from "../Html.ts"
import { html, trusted } from "../Html.ts"
import type { Page } from "../Page.ts"
import type { StepSpec } from "./steps.ts"
import { loadSteps, stepsHtml } from "./steps.ts"
import { badge, datasetHref, demoHref, lfHref, notFound, page, plural, short, taskHref, trajectoryHref, trajectoryLink } from "./shared.ts"

type Recorded = Extract<CoreEvent, { type: "TrajectoryRecorded" }>["data"]
type AuditLf = TrajectoryAudit["label_functions"][number]

/** JSON inside `<script>`: `<` as `\u003c`, so no `</script>` in the data can end the element. */
export const jsonScript = (id: string, value: unknown): Html =>
  html`<script type="application/json" id="${id}">${trusted(JSON.stringify(value).replace(/</g, "\\u003c"))}</script>`

const verdictText = (lf: AuditLf | undefined): string => {
  const v = lf?.verdict ?? null
  if (v === null) return "not evaluated"
  if (v.error !== null) return `error: ${v.error}`
  return v.satisfied_at < 0 ? "missing" : `held at step ${v.satisfied_at}`
}

const lfItem = (runId: string, trajectoryId: string, lfId: string, description: string, at: number, text: string): Html =>
  html`<li data-lf-id="${lfId}" data-satisfied-at="${at}"><a href="${lfHref(runId, lfId)}"><code>${short(lfId)}</code></a> ${description} — ${
    at >= 0 ? html`<a href="${trajectoryHref(runId, trajectoryId, at)}">${text}</a>` : html`<strong>${text}</strong>`
  }</li>`

/** Every LF of the matched path with the step it held at; for any other label, the path that came closest, held or missing. */
const verdictStrip = (runId: string, a: TrajectoryAudit): Html => {
  const byNode = new Map(a.label_functions.map((lf) => [lf.node_id, lf]))
  const id = a.trajectory.id
  if (a.path.matched) {
    const items = a.path.steps.map((s) => {
      const at = s.step ?? byNode.get(s.node_id)?.verdict?.satisfied_at ?? -1
      return lfItem(runId, id, s.lf_id, s.description, at, s.step === null ? "held after the previous node" : `held at step ${s.step}`)
    })
    return html`<div class="evidence">${badge(a.label)} path <code>${a.path.path_id ?? "(no longer in the graph)"}</code>: start → ${a.path.steps.length} nodes → end<ol>${items}</ol></div>`
  }
  if (a.promoted !== null)
    return html`<div class="evidence">${badge(a.label)} promoted: it solved the task by expansion's rule, and a path its round added accepts it, start → ${a.promoted.node_ids.length} nodes → end, held at steps ${a.promoted.matched.map((m) => m.step).join(", ")}</div>`
  const best = [...a.path.candidates].sort((x, y) => y.held_in_order - x.held_in_order)[0]
  if (best === undefined)
    return html`<div class="evidence">${badge(a.label)} the task's graph had no path: no label function judged this trajectory</div>`
  const items = best.node_ids.map((nodeId) => {
    const lf = byNode.get(nodeId)
    return lfItem(runId, id, lf?.lf_id ?? "", lf?.description ?? nodeId, lf?.verdict?.satisfied_at ?? -1, verdictText(lf))
  })
  return html`<div class="evidence">${badge(a.label)} no path held in order; closest: <code>${best.path_id}</code>, ${best.held_in_order} of ${plural(best.node_ids.length, "node")} held in order from the start<ol>${items}</ol></div>`
}

const lfTable = (runId: string, a: TrajectoryAudit): Html =>
  html`<table><thead><tr><th>label function</th><th>node</th><th>key step</th><th>how</th><th>from</th><th>on this trajectory</th></tr></thead>
<tbody>${a.label_functions.map(
    (lf) => html`<tr><td><a href="${lfHref(runId, lf.lf_id)}"><code>${short(lf.lf_id)}</code></a></td><td><code>${lf.node_id}</code></td>
<td>${lf.description}</td><td>${lf.how}</td>
<td>${lf.source.kind === "demo" ? html`<a href="${demoHref(runId, lf.source.id)}">demo ${lf.source.id}</a>` : html`trajectory ${trajectoryLink(runId, lf.source.id)}`}${
      lf.key_step_index === null ? "" : `, step ${lf.key_step_index}`
    }</td><td>${verdictText(lf)}</td></tr>`
  )}</tbody></table>`

const provenance = (runId: string, a: TrajectoryAudit): Html => html`<h2>Where its judges came from, and what it fed</h2>
<p>Source demos: ${
  a.demos.length === 0
    ? html`<span class="muted">none</span>`
    : a.demos.map((d, i) => html`${i > 0 ? ", " : ""}<a href="${demoHref(runId, d.demo_id)}">${d.demo_id}</a>`)
}${
  a.expanded_from.length === 0
    ? ""
    : html`; expanded from ${a.expanded_from.map((t, i) => html`${i > 0 ? ", " : ""}${trajectoryLink(runId, t)}`)}`
}</p>
<p>Dataset records: ${
  a.dataset_records.length === 0
    ? html`<span class="muted">none</span>`
    : html`<a href="${datasetHref(runId, { trajectory: a.trajectory.id })}">${plural(a.dataset_records.length, "record")}</a>: ${a.dataset_records.map(
        (r, i) =>
          html`${i > 0 ? ", " : ""}<a href="${datasetHref(runId, { trajectory: a.trajectory.id, record: r.record_id })}">${r.format} <code>${short(r.record_id)}</code></a>${r.as === null ? "" : ` (${r.as})`}`
      )}`
}</p>
<p>Tasks extrapolated from it: ${
  a.extrapolated.length === 0
    ? html`<span class="muted">none</span>`
    : a.extrapolated.map(
        (x, i) => html`${i > 0 ? ", " : ""}<a href="${taskHref(runId, x.task_id)}">${x.task_id}</a> “${x.instruction}” (${x.generator})`
      )
}</p>`

/** Step N acts on the observation before it: the initial one for step 0. */
const stepSpecs = (t: Recorded, a: TrajectoryAudit): ReadonlyArray<StepSpec> => {
  const heldAt = (i: number) =>
    a.label_functions.filter((lf) => lf.verdict !== null && lf.verdict.error === null && lf.verdict.satisfied_at === i)
  const specs: Array<StepSpec> = t.steps.map((s, i) => {
    const before = i === 0 ? t.initial : t.steps[i - 1]!.observation
    const held = heldAt(i)
    return {
      index: i,
      action: actionText(s.action),
      target: "target" in s.action ? s.action.target : null,
      screen: before,
      urlBefore: before.url,
      urlAfter: s.observation.url,
      error: s.observation.error,
      notes: held.length === 0 ? html`` : html`<p>${held.map((lf) => html`<span class="badge pass">held</span> ${lf.description} `)}</p>`
    }
  })
  const last = t.steps.at(-1)?.observation ?? t.initial
  specs.push({ index: t.steps.length, action: null, target: null, screen: last, urlBefore: last.url, urlAfter: null, error: null })
  return specs
}

export const trajectoryPage: Page = (ctx, params) =>
  Effect.gen(function* () {
    const runId = params.run ?? ""
    const trajectoryId = params.trajectory ?? ""
    const events = yield* ctx.runLog(runId)
    if (events.length === 0) return notFound(`no run ${runId} in the log`)
    const stream = `run.${runId}.traj.${trajectoryId}`
    if (!events.some((e) => e.stream === stream)) return notFound(`run ${runId} has no trajectory ${trajectoryId}`)
    const audit = auditTrajectoryOf(events, runId, trajectoryId)
    if (typeof audit === "string") return notFound(audit)
    const recorded = events.find(
      (e): e is Extract<CoreEvent, { type: "TrajectoryRecorded" }> => e.type === "TrajectoryRecorded" && e.stream === stream
    )!
    const views = yield* loadSteps(stepSpecs(recorded.data, audit))
    const t = audit.trajectory
    const body = html`<h1>Trajectory ${t.id} ${badge(audit.label)}</h1>
<p>Task <a href="${taskHref(runId, audit.task)}">${audit.task}</a>${audit.instruction === null ? "" : html`: “${audit.instruction}”`}</p>
<p class="muted">run ${runId} · round ${t.round} · sample ${t.sample} · policy ${t.policy} · ${t.outcome}, ${plural(t.steps.length, "step")}${
      t.attempts > 1 ? `, ${t.attempts} attempts` : ""
    }${t.infra_error === null ? "" : ` · infra error: ${t.infra_error}`} · judged by the graph as round ${audit.graph.round} started (${plural(audit.graph.nodes, "node")}, ${plural(audit.graph.paths.length, "path")})</p>
${verdictStrip(runId, audit)}
<h2>Label functions of the graph</h2>${lfTable(runId, audit)}
${provenance(runId, audit)}
<h2>Steps</h2>${stepsHtml(views)}
${jsonScript("audit", audit)}`
    return page(`Trajectory ${t.id}`, body)
  })
