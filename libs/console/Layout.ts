/**
 * The HTML document around a page body. Its only script and stylesheet are the console's
 * own assets (the Content-Security-Policy allows nothing inline), so every behaviour hangs
 * on data attributes the client script reads (Routes.ts).
 */
import type { Html } from "./Html.ts"
import { html } from "./Html.ts"

/** How far the read models stand behind the log, as the server found them before the page. */
export interface ReadModelLag {
  /** Position of the log's last commit. */
  readonly head: number
  /** The least advanced projection's checkpoint. */
  readonly checkpoint: number
  /** Why the catch-up did not finish (another projector on the database, a database error), or null. */
  readonly problem: string | null
}

export interface LayoutInput {
  readonly title: string
  readonly body: Html
  readonly live?: { readonly runId: string | null }
  /** Absent for pages that read no read model (not found, a failure). */
  readonly lag?: ReadModelLag
}

const liveUrl = (live: { readonly runId: string | null }): string =>
  live.runId === null ? "/live" : `/live?run=${encodeURIComponent(live.runId)}`

/** Always present (empty when caught up), so a live update can replace it with the new page's. */
const lagLine = (lag: ReadModelLag | undefined): Html => {
  const behind = lag === undefined ? 0 : Math.max(0, lag.head - lag.checkpoint)
  if (lag === undefined || (behind === 0 && lag.problem === null)) return html`<div class="lag muted" data-lag></div>`
  const where = html`read models at log position ${lag.checkpoint} of ${lag.head}${behind > 0 ? html` (${behind} behind)` : ""}`
  return html`<div class="lag muted" data-lag>${where}${lag.problem === null ? "" : html`: ${lag.problem}`}</div>`
}

/** The whole document as text. */
export const layout = (input: LayoutInput): string => {
  const live = input.live === undefined ? "" : html` data-live="${liveUrl(input.live)}"`
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${input.title} · CORE console</title>
<link rel="stylesheet" href="/assets/console.css">
<script src="/assets/console.js" defer></script>
</head>
<body${live}>
<header>
<nav aria-label="console"><a class="brand" href="/">CORE</a> <a href="/">Runs</a></nav>
<span class="live-status muted" data-live-status aria-live="polite">${input.live === undefined ? "" : "live"}</span>
</header>
${lagLine(input.lag)}
<main>
${input.body}
</main>
</body>
</html>
`.text
}

/** A short page for a refusal or a failure: one escaped line, never a stack. */
export const messagePage = (title: string, message: string): string => layout({ title, body: html`<h1>${title}</h1><p>${message}</p>` })
