/**
 * `/runs/:run/lfs/:lf`: one label function as the run inferred it — code, key step, source
 * demo, validation, the model calls that wrote it (their prompts and answers) — every
 * verdict it gave in the run, and the what-if form that re-scores the run with edited code.
 */
import { Effect } from "effect"
import type { CoreEvent } from "@core/events"
import type { Html } from "../Html.ts"
import { html } from "../Html.ts"
import type { Page } from "../Page.ts"
import type { LfVerdictRow, NodeRow } from "../Queries.ts"
import { lfVerdictsOf, nodesWithLf } from "../Queries.ts"
import { badge, blobHref, demoHref, notFound, page, plural, runHref, short, taskHref, trajectoryHref, trajectoryLink } from "./shared.ts"

type Of<T extends CoreEvent["type"]> = Extract<CoreEvent, { type: T }>
type Inferred = Of<"LabelFunctionInferred">

const modelCall = (call: Of<"ModelCalled"> | undefined, id: string): Html => {
  if (call === undefined) return html`<li><code>${short(id)}</code> <span class="muted">not in this run's log</span></li>`
  const c = call.data
  return html`<li><code>${short(id)}</code> ${c.model}, ${c.purpose}, prompt <code>${c.prompt.name}@${c.prompt.version}</code> <span class="muted">(${short(c.prompt.digest)}, ${Math.round(c.latencyMs)} ms)</span>${
    c.requestBlob === null ? "" : html` · <a href="${blobHref(c.requestBlob)}">request</a>`
  }
${c.error === null ? "" : html`<p><span class="badge fail">error</span> ${c.error}</p>`}
${c.response === null ? "" : html`<details><summary>answer (${c.response.finishReason})</summary><pre class="code">${c.response.text}</pre></details>`}</li>`
}

const inferenceSection = (runId: string, events: ReadonlyArray<CoreEvent>, e: Inferred): Html => {
  const d = e.data
  const v = d.validation
  const calls = d.inference.modelCallIds.map((id) =>
    modelCall(
      events.find((x): x is Of<"ModelCalled"> => x.type === "ModelCalled" && x.id === id),
      id
    )
  )
  return html`<section>
<h3>For task <a href="${taskHref(runId, d.taskId)}">${d.taskId}</a>, from ${
    d.source.kind === "demo"
      ? html`demo <a href="${demoHref(runId, d.source.id)}">${d.source.id}</a>`
      : html`trajectory ${trajectoryLink(runId, d.source.id)}`
  }, key step ${d.keyStepIndex}</h3>
<p>Key step: ${d.description}</p>
<p class="muted">LF API ${d.apiVersion} · ${d.inference.method}, evidence ${d.inference.evidence}, ${plural(d.inference.attempts, "attempt")}</p>
<p>Validation: held on its source at step ${v.onDemoAtKeyStep}; on the prefix before the key step: ${v.onPrefix ? "held" : "did not hold"}; known failures: ${
    v.onFailures.length === 0
      ? "none known"
      : v.onFailures.map(
          (f, i) =>
            html`${i > 0 ? ", " : ""}${trajectoryLink(runId, f.trajectoryId)} ${f.result < 0 ? "did not hold" : `held at ${f.result}`}`
        )
  }</p>
${calls.length === 0 ? html`<p class="muted">No model call: ${d.inference.method === "embedded" ? "inferred without a model" : "none recorded"}.</p>` : html`<p>Model calls:</p><ul>${calls}</ul>`}
</section>`
}

const verdictsTable = (runId: string, rows: ReadonlyArray<LfVerdictRow>): Html =>
  rows.length === 0
    ? html`<p class="muted">It judged no trajectory in this run.</p>`
    : html`<table><thead><tr><th>trajectory</th><th>task</th><th>finding</th><th>trajectory's label</th></tr></thead><tbody>${rows.map(
        (r) => html`<tr><td><a href="${trajectoryHref(runId, r.trajectory_id)}">${r.trajectory_id}</a></td><td>${r.task_id ?? ""}</td>
<td>${
          r.status === "satisfied" && r.satisfied_at !== null
            ? html`held at <a href="${trajectoryHref(runId, r.trajectory_id, r.satisfied_at)}">step ${r.satisfied_at}</a>`
            : r.status === "error"
              ? html`<span class="badge infra-error">error</span> ${r.error ?? ""}`
              : "did not hold"
        }</td><td>${badge(r.verdict)}</td></tr>`
      )}</tbody></table>`

const nodesList = (runId: string, nodes: ReadonlyArray<NodeRow>): Html =>
  nodes.length === 0
    ? html`<p class="muted">No strategy-graph node of this run uses it.</p>`
    : html`<ul>${nodes.map(
        (n) =>
          html`<li><a href="${taskHref(runId, n.task_id)}#node-${n.node_id}">${n.task_id} / <code>${n.node_id}</code></a> ${n.description ?? ""} <span class="muted">(${n.how ?? "?"})</span></li>`
      )}</ul>`

/** No token in it: the cookie authenticates the post, and a page must never hold what unlocks the console. */
export const whatIfForm = (runId: string, lfId: string, code: string): Html =>
  html`<form method="post" action="${runHref(runId)}/what-if">
<input type="hidden" name="lf" value="${lfId}">
<p><label for="what-if-code">Edit the code, then re-score every trajectory of the run with it (nothing is written to the log):</label></p>
<textarea id="what-if-code" name="code" rows="14" cols="100" spellcheck="false">
${code}</textarea>
<p><button type="submit">what if</button></p>
</form>`

export const labelFunctionPage: Page = (ctx, params) =>
  Effect.gen(function* () {
    const runId = params.run ?? ""
    const asked = params.lf ?? ""
    const events = yield* ctx.runLog(runId)
    if (events.length === 0) return notFound(`no run ${runId} in the log`)
    // A prefix of 6 or more characters names an LF, as `audit label-function` takes one, when only one LF starts with it.
    const ids = new Set(events.flatMap((e) => (e.type === "LabelFunctionInferred" && e.data.lfId.startsWith(asked) ? [e.data.lfId] : [])))
    if (asked.length < 6 || ids.size !== 1)
      return notFound(
        `run ${runId} has ${ids.size === 0 || asked.length < 6 ? "no" : "more than one"} label function ${asked}${ids.size > 1 ? "…" : ""}`
      )
    const lfId = [...ids][0]!
    const inferred = events.filter((e): e is Inferred => e.type === "LabelFunctionInferred" && e.data.lfId === lfId)
    const latest = inferred.at(-1)!
    const verdicts = yield* lfVerdictsOf(ctx.readModels, runId, lfId)
    const nodes = yield* nodesWithLf(ctx.readModels, runId, lfId)
    const held = verdicts.filter((v) => v.status === "satisfied").length
    const body = html`<h1>Label function <code>${short(lfId)}</code></h1>
<p>${latest.data.description}</p>
<p class="muted">id <code>${lfId}</code> (the sha256 of its code)</p>
<pre class="code">${latest.data.code}</pre>
<h2>Inferred</h2>${inferred.map((e) => inferenceSection(runId, events, e))}
<h2>Nodes</h2>${nodesList(runId, nodes)}
<h2>Verdicts</h2><p class="muted">${plural(verdicts.length, "trajectory", "trajectories")} judged, held on ${held}.</p>${verdictsTable(runId, verdicts)}
<h2>What if</h2>${whatIfForm(runId, lfId, latest.data.code)}`
    return page(`Label function ${short(lfId)}`, body)
  })
