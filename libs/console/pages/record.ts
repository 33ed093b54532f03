/**
 * One dataset record as a trainer reads it: sft and dpo as chat turns with their screenshots
 * where the `<image>` placeholders put them (`chatOf`, the placement every trainer layout
 * uses), rollouts as their steps with per-step rewards; and the body as emitted.
 */
import { chatOf, typedContent } from "@core/domain"
import type { Message, SourceRecord } from "@core/domain"
import type { Html } from "../Html.ts"
import { html } from "../Html.ts"
import type { RecordRow } from "../Queries.ts"
import { parseJson } from "../Queries.ts"
import { badge, blobHref, trajectoryLink } from "./shared.ts"

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Turns in order, each `<image>` placeholder replaced by the next screenshot. */
const turns = (messages: ReadonlyArray<Message>, images: ReadonlyArray<string>, next: { i: number }): Html =>
  html`${messages.map((m) => {
    const parts = typedContent(m.content).map((p) => {
      if (p.type === "text") return html`<pre class="code">${p.text}</pre>`
      const hash = images[next.i++]
      return hash === undefined
        ? html`<p class="muted">(an image placeholder with no image)</p>`
        : html`<img src="${blobHref(hash)}" alt="screenshot">`
    })
    return html`<div class="message"><h4>${m.role}</h4>${parts}</div>`
  })}`

const chat = (row: RecordRow, runId: string, body: unknown): Html => {
  const c = chatOf({
    recordId: row.record_id,
    runId,
    round: row.round ?? 0,
    format: (row.format ?? "sft") as SourceRecord["format"],
    taskId: row.task_id ?? "",
    trajectoryIds: parseJson<ReadonlyArray<string>>(row.trajectory_ids, []),
    body
  })
  if (typeof c === "string") return html`<p><span class="badge fail">not a chat</span> ${c}</p>`
  const next = { i: 0 }
  const prompt = turns(c.messages, c.images, next)
  if (c.chosen === null || c.rejected === null) return prompt
  return html`<h3>Prompt</h3>${prompt}
<h3>Chosen</h3>${turns([c.chosen], c.images, next)}
<h3>Rejected</h3>${turns([c.rejected], c.images, next)}`
}

const rollout = (body: unknown): Html => {
  if (!isObject(body) || !Array.isArray(body.steps)) return html`<p class="muted">No steps in this record.</p>`
  const images = Array.isArray(body.images) ? (body.images as ReadonlyArray<unknown>) : []
  const rows = body.steps.map((s: unknown, i: number) => {
    const step = isObject(s) ? s : {}
    const image = typeof step.image === "number" ? images[step.image] : undefined
    return html`<tr><td>${i}</td><td><code>${String(step.url ?? "")}</code></td><td><code>${JSON.stringify(step.action ?? null)}</code></td>
<td>${String(step.description ?? "")}${step.error ? html`<br><span class="badge fail">error</span> ${String(step.error)}` : ""}</td>
<td>${String(step.reward ?? "")}</td><td>${typeof image === "string" ? html`<img src="${blobHref(image)}" alt="screenshot of step ${i}">` : ""}</td></tr>`
  })
  return html`<p>${String(body.instruction ?? "")} · ${badge(typeof body.verdict === "string" ? body.verdict : null)} · reward ${String(body.reward ?? "?")}</p>
<table><thead><tr><th>step</th><th>page</th><th>action</th><th>description</th><th>reward</th><th>screen</th></tr></thead><tbody>${rows}</tbody></table>`
}

export const recordHtml = (runId: string, row: RecordRow): Html => {
  const body = parseJson<unknown>(row.body, null)
  const trajectories = parseJson<ReadonlyArray<string>>(row.trajectory_ids, [])
  return html`<section id="record">
<h2>Record <code>${row.record_id}</code></h2>
<p>${row.format ?? "?"} · round ${row.round ?? "?"} · task ${row.task_id ?? "?"} · from ${trajectories.map(
    (t, i) => html`${i > 0 ? ", " : ""}${trajectoryLink(runId, t)}${row.format === "dpo" ? (i === 0 ? " (chosen)" : " (rejected)") : ""}`
  )}</p>
${row.format === "rollout" ? rollout(body) : chat(row, runId, body)}
<details><summary>the body as emitted</summary><pre class="code">${JSON.stringify(body, null, 2)}</pre></details>
</section>`
}
