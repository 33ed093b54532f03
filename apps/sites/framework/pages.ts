/** Framework-level pages: the index of sites and the "no episode" error, same look for every site. */
import { documentHtml, html, htmlResponse } from "./html.ts"
import type { AnySite } from "./site.ts"

export const noEpisodePage = (reason: string): Response =>
  htmlResponse(
    documentHtml({
      title: "No episode",
      body: html`<main><h1>No episode</h1><p role="alert">${reason}</p>
<p>These sites run inside a CORE episode, which the harness starts. To browse one yourself, open an enter URL that <code>bun core sites serve</code> printed.</p></main>`
    }),
    400
  )

/** No way to start an episode here: a page any browser can reach must not be able to start one. */
export const indexPage = (sites: ReadonlyArray<AnySite>): Response =>
  htmlResponse(
    documentHtml({
      title: "CORE sites",
      body: html`<main><h1>CORE sites</h1>
<p>Sites served here: ${sites.map((s) => s.title).join(", ")}.</p>
<p>Each runs inside an episode that the harness starts. To browse one, open an enter URL that <code>bun core sites serve</code> printed.</p></main>`
    })
  )
