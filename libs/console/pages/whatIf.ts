/**
 * `POST /runs/:run/what-if` (fields `lf`, `code`): the run's trajectories re-scored with one
 * label function's code replaced (`whatIf` of @core/pipeline, in the LF sandbox), and the
 * verdicts that flip. Nothing is written: what-if reads the log and re-derives in memory.
 * Code that does not compile, or defines no `labelFunction`, is one line of error.
 */
import { Effect } from "effect"
import { labelSandbox, whatIf } from "@core/pipeline"
import { Sandbox } from "@core/sandbox"
import type { Html } from "../Html.ts"
import { html } from "../Html.ts"
import type { Page } from "../Page.ts"
import { whatIfForm } from "./labelFunction.ts"
import { badge, lfHref, notFound, page, plural, short, taskHref, trajectoryHref } from "./shared.ts"

type Flips = Effect.Success<ReturnType<typeof whatIf>>["flips"]

/** An LF with nothing to read: enough for the sandbox to compile the code and find `labelFunction`. */
const PROBE = { key: "console-what-if-probe", value: { steps: [], startUrl: null, initialElements: null } }

const firstLine = (s: string): string => s.split("\n")[0] ?? s

const rescore = (runId: string, lfId: string, code: string) =>
  Effect.gen(function* () {
    const sandbox = yield* Sandbox
    const probe = yield* sandbox.evaluate({ code, trajectory: PROBE })
    if (probe.kind === "error" && probe.reason.startsWith("syntax:")) return { ok: false, error: firstLine(probe.reason) } as const
    return { ok: true, report: yield* whatIf({ runId, replace: new Map([[lfId, code]]) }) } as const
  }).pipe(
    Effect.provide(labelSandbox()),
    // Whatever stops the re-scoring (an LF the run does not have, a sandbox that cannot start) is the answer, not a crash.
    Effect.catch((e: unknown) => Effect.succeed({ ok: false, error: firstLine(e instanceof Error ? e.message : String(e)) } as const))
  )

const flipsTable = (runId: string, flips: Flips): Html =>
  flips.length === 0
    ? html`<p class="muted">No verdict changes.</p>`
    : html`<table><thead><tr><th>trajectory</th><th>task</th><th>logged</th><th></th><th>re-derived</th></tr></thead><tbody>${flips.map(
        (f) => html`<tr><td><a href="${trajectoryHref(runId, f.trajectoryId)}">${f.trajectoryId}</a></td>
<td><a href="${taskHref(runId, f.taskId)}">${f.taskId}</a></td><td>${badge(f.logged)}</td><td>→</td><td>${badge(f.rederived)}</td></tr>`
      )}</tbody></table>`

export const whatIfPage: Page = (ctx, params) =>
  Effect.gen(function* () {
    const runId = params.run ?? ""
    const lfId = params.lf ?? ""
    const code = params.code ?? ""
    const events = yield* ctx.runLog(runId)
    if (events.length === 0) return notFound(`no run ${runId} in the log`)
    const title = `What if ${short(lfId)} changed`
    const heading = html`<h1>What if <a href="${lfHref(runId, lfId)}"><code>${short(lfId)}</code></a> changed</h1>`
    const failed = (line: string) =>
      page(title, html`${heading}<p><span class="badge fail">error</span> ${line}</p>${whatIfForm(runId, lfId, code)}`)
    if (!/^[0-9a-fA-F]{6,64}$/.test(lfId)) return failed(`${JSON.stringify(lfId)} is not a label function id`)
    if (!/function\s+labelFunction\s*\(/.test(code)) return failed("the code defines no function labelFunction(t)")
    const outcome = yield* rescore(runId, lfId, code)
    if (!outcome.ok) return failed(outcome.error)
    const r = outcome.report
    const n = r.flips.length
    const body = html`${heading}
<p data-flip-count="${n}"><strong>${plural(n, "verdict")} flip</strong> of ${plural(r.trajectories, "trajectory", "trajectories")} re-scored against the graphs as they were (nothing was written).</p>
${flipsTable(runId, r.flips)}
<h2>Try again</h2>${whatIfForm(runId, lfId, code)}`
    return page(title, body)
  })
