/**
 * What every page shares: links to the other pages, verdict badges, short ids and the two
 * results a page returns. Path segments are percent-encoded although the router only
 * matches tokens: an id from the log is data, and a link must not become another path.
 */
import type { Html } from "../Html.ts"
import { html } from "../Html.ts"
import type { PageResult } from "../Page.ts"

const seg = (s: string): string => encodeURIComponent(s)

export const runHref = (runId: string): string => `/runs/${seg(runId)}`
export const taskHref = (runId: string, taskId: string): string => `${runHref(runId)}/tasks/${seg(taskId)}`
export const trajectoryHref = (runId: string, trajectoryId: string, step?: number): string =>
  `${runHref(runId)}/trajectories/${seg(trajectoryId)}${step === undefined ? "" : `#step-${step}`}`
export const demoHref = (runId: string, demoId: string): string => `${runHref(runId)}/demos/${seg(demoId)}`
export const lfHref = (runId: string, lfId: string): string => `${runHref(runId)}/lfs/${seg(lfId)}`
export const blobHref = (hash: string): string => `/blob/${seg(hash)}`

/** The dataset page with these filters (empty values left out). */
export const datasetHref = (runId: string, params: Readonly<Record<string, string | number | undefined>> = {}): string => {
  const search = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") search.set(k, String(v))
  const s = search.toString()
  return `${runHref(runId)}/datasets${s === "" ? "" : `?${s}`}`
}

export const short = (id: string, n = 12): string => (id.length > n ? id.slice(0, n) : id)

/** Dataset records name a demo's steps as the trajectory `demo:<id>`. */
const DEMO_PREFIX = "demo:"

/** A link to whatever a trajectory id of a record or lineage edge names: a rollout, or a demo. */
export const trajectoryLink = (runId: string, trajectoryId: string): Html =>
  trajectoryId.startsWith(DEMO_PREFIX)
    ? html`<a href="${demoHref(runId, trajectoryId.slice(DEMO_PREFIX.length))}">${trajectoryId}</a>`
    : html`<a href="${trajectoryHref(runId, trajectoryId)}">${trajectoryId}</a>`

export const VERDICTS = ["pass", "partial", "fail", "infra-error"] as const
export type Verdict = (typeof VERDICTS)[number]
export const isVerdict = (s: string | null | undefined): s is Verdict => (VERDICTS as ReadonlyArray<string | null | undefined>).includes(s)

/** A verdict as a badge; anything else (not verified yet) as muted text. */
export const badge = (verdict: string | null | undefined): Html =>
  isVerdict(verdict)
    ? html`<span class="badge ${verdict}">${verdict}</span>`
    : html`<span class="muted">${verdict ?? "not verified"}</span>`

export const page = (title: string, body: Html, live?: { readonly runId: string | null }): PageResult =>
  live === undefined ? { kind: "page", title, body } : { kind: "page", title, body, live }

export const notFound = (message: string): PageResult => ({ kind: "not-found", message })

export const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`

/** An ISO instant as a reader scans it: date and time to the second, UTC. */
export const when = (iso: string | null | undefined): string => (iso ? iso.replace("T", " ").replace(/\.\d+Z$/, "Z") : "—")

/** A whole number ≥ 0 from a query parameter, or undefined when absent or not one. */
export const wholeParam = (v: string | null): number | undefined => (v !== null && /^\d{1,9}$/.test(v) ? Number(v) : undefined)
