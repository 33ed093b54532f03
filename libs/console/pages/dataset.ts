/**
 * `/runs/:run/datasets`: the run's dataset records by round and format, filtered by
 * `?round=&format=&trajectory=`, one of them (`?record=ID`) as the trainer reads it, and the
 * `bun core dataset export` command that writes the current selection.
 */
import { Effect } from "effect"
import type { Html } from "../Html.ts"
import { html } from "../Html.ts"
import type { Page } from "../Page.ts"
import type { RecordCount, RecordFilter, RecordMeta, SealRow } from "../Queries.ts"
import { parseJson, recordCounts, recordOf, recordsOf, runKnown, sealsOf } from "../Queries.ts"
import { recordHtml } from "./record.ts"
import { datasetHref, notFound, page, plural, runHref, short, trajectoryLink, wholeParam } from "./shared.ts"

const FORMATS = ["sft", "dpo", "rollout"] as const
/** Enough to scan; the export command writes them all. */
const LISTED = 200

type Filter = { readonly round?: number; readonly format?: string; readonly trajectory?: string }

const hrefWith = (runId: string, f: Filter, change: Partial<Record<keyof Filter | "record", string | number | undefined>>) =>
  datasetHref(runId, { round: f.round, format: f.format, trajectory: f.trajectory, ...change })

const summary = (runId: string, counts: ReadonlyArray<RecordCount>, seals: ReadonlyArray<SealRow>): Html => {
  const rounds = [...new Set([...counts.map((c) => c.round ?? 0), ...seals.map((s) => s.round)])].sort((a, b) => a - b)
  const cell = (round: number, format: string) => {
    const n = counts.filter((c) => c.round === round && c.format === format).reduce((k, c) => k + c.n, 0)
    return n === 0 ? html`<td class="muted">0</td>` : html`<td><a href="${datasetHref(runId, { round, format })}">${n}</a></td>`
  }
  return html`<table><thead><tr><th>round</th>${FORMATS.map((f) => html`<th>${f}</th>`)}<th>sealed</th></tr></thead><tbody>${rounds.map(
    (r) => {
      const seal = seals.find((s) => s.round === r)
      return html`<tr><td><a href="${datasetHref(runId, { round: r })}">${r}</a></td>${FORMATS.map((f) => cell(r, f))}<td>${
        seal === undefined
          ? html`<span class="muted">not yet</span>`
          : html`${seal.record_count ?? 0} records, <code>${short(seal.content_digest ?? "", 16)}</code>`
      }</td></tr>`
    }
  )}</tbody></table>`
}

const filterBar = (runId: string, f: Filter, rounds: ReadonlyArray<number>): Html => {
  const choice = (label: string, href: string, current: boolean) =>
    current ? html`<strong>${label}</strong>` : html`<a href="${href}">${label}</a>`
  return html`<p>Round: ${choice("all", hrefWith(runId, f, { round: undefined }), f.round === undefined)}${rounds.map(
    (r) => html` · ${choice(String(r), hrefWith(runId, f, { round: r }), f.round === r)}`
  )}</p>
<p>Format: ${choice("all", hrefWith(runId, f, { format: undefined }), f.format === undefined)}${FORMATS.map(
    (x) => html` · ${choice(x, hrefWith(runId, f, { format: x }), f.format === x)}`
  )}</p>
${f.trajectory === undefined ? "" : html`<p>Made from ${trajectoryLink(runId, f.trajectory)} · <a href="${hrefWith(runId, f, { trajectory: undefined })}">any trajectory</a></p>`}`
}

const recordsTable = (runId: string, f: Filter, rows: ReadonlyArray<RecordMeta>, current: string | null): Html =>
  rows.length === 0
    ? html`<p class="muted">No record matches.</p>`
    : html`<p class="muted">${plural(rows.length, "record")}${rows.length > LISTED ? `, the first ${LISTED} listed` : ""}.</p>
<table><thead><tr><th>record</th><th>round</th><th>format</th><th>task</th><th>trajectories</th></tr></thead><tbody>${rows
        .slice(0, LISTED)
        .map(
          (
            r
          ) => html`<tr${r.record_id === current ? html` class="current"` : ""}><td><a href="${hrefWith(runId, f, { record: r.record_id })}#record"><code>${short(r.record_id)}</code></a></td>
<td>${r.round ?? ""}</td><td>${r.format ?? ""}</td><td>${r.task_id ?? ""}</td>
<td>${parseJson<ReadonlyArray<string>>(r.trajectory_ids, []).map((t, i) => html`${i > 0 ? ", " : ""}${trajectoryLink(runId, t)}`)}</td></tr>`
        )}</tbody></table>`

/** The export that writes this selection: the command has no trajectory filter, so it writes the round's and format's records. */
export const exportCommands = (runId: string, f: Filter): Html => {
  const formats = f.format === undefined ? FORMATS : [f.format]
  const lines = formats.map(
    (format) =>
      `bun core dataset export --run ${runId} --format ${format}${f.round === undefined ? "" : ` --round ${f.round}`} --out data/${runId}-${format}${
        f.round === undefined ? "" : `-r${f.round}`
      }.jsonl`
  )
  return html`<h2>Export</h2><pre class="code">${lines.join("\n")}</pre>${
    f.trajectory === undefined
      ? ""
      : html`<p class="muted">The export has no trajectory filter: it writes every record of the round and format.</p>`
  }<p class="muted">Add <code>--for trl</code>, <code>--for llama-factory</code> or <code>--for verl</code> for a trainer's layout, <code>--images marked</code> for the set-of-marks images.</p>`
}

export const datasetPage: Page = (ctx, params, query) =>
  Effect.gen(function* () {
    const runId = params.run ?? ""
    const rm = ctx.readModels
    if (!(yield* runKnown(rm, runId))) return notFound(`no run ${runId} in the read models`)
    const round = wholeParam(query.get("round"))
    const wantedFormat = query.get("format") ?? ""
    const format = (FORMATS as ReadonlyArray<string>).includes(wantedFormat) ? wantedFormat : undefined
    const trajectory = query.get("trajectory") || undefined
    const filter: RecordFilter & Filter = { round, format, trajectory }
    const recordId = query.get("record")
    const record = recordId === null || recordId === "" ? undefined : yield* recordOf(rm, runId, recordId)
    if (recordId !== null && recordId !== "" && record === undefined) return notFound(`run ${runId} has no dataset record ${recordId}`)
    const counts = yield* recordCounts(rm, runId)
    const seals = yield* sealsOf(rm, runId)
    const rows = yield* recordsOf(rm, runId, filter)
    const rounds = [...new Set(counts.map((c) => c.round ?? 0))].sort((a, b) => a - b)
    const ignored = [
      query.get("round") && round === undefined ? `round ${query.get("round")}` : null,
      wantedFormat !== "" && format === undefined ? `format ${wantedFormat}` : null
    ].filter((x) => x !== null)
    const body = html`<h1>Dataset of run <a href="${runHref(runId)}">${runId}</a></h1>
${counts.length === 0 ? html`<p class="muted">No record yet: a round's records are emitted when its dataset is built.</p>` : summary(runId, counts, seals)}
${ignored.length === 0 ? "" : html`<p class="muted">Ignored: ${ignored.join(", ")} (not a round number or a format).</p>`}
${filterBar(runId, filter, rounds)}
${recordsTable(runId, filter, rows, record?.record_id ?? null)}
${record === undefined ? "" : recordHtml(runId, record)}
${exportCommands(runId, filter)}`
    return page(`Dataset of ${runId}`, body)
  })
