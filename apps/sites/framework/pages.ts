/** Framework-level pages: the index of sites and the "no episode" error, same look for every site. */
import { documentHtml, html, htmlResponse } from "./html.ts"
import type { AnySite } from "./site.ts"

export const noEpisodePage = (reason: string): Response =>
  htmlResponse(
    documentHtml({
      title: "No episode",
      body: html`<main><h1>No episode</h1><p role="alert">${reason}</p>
<p>These sites run inside a CORE episode. Start one with <code>POST /__core/episodes</code> (JSON <code>{"site": "shop", "seed": 1}</code>) and open the <code>startUrl</code> it returns, or use the <a href="/">start page</a>.</p></main>`
    }),
    400
  )

export const indexPage = (sites: ReadonlyArray<AnySite>): Response =>
  htmlResponse(
    documentHtml({
      title: "CORE sites",
      body: html`<main><h1>CORE sites</h1>
<p>Each form starts a fresh episode of a site with the given seed.</p>
${sites.map(
  (s) => html`<section aria-labelledby="site-${s.name}"><h2 id="site-${s.name}">${s.title}</h2>
<form method="post" action="/__core/episodes"><input type="hidden" name="site" value="${s.name}">
<label for="seed-${s.name}">Seed</label> <input id="seed-${s.name}" name="seed" type="number" min="0" value="1" required>
<button type="submit">Start ${s.title} episode</button></form></section>`
)}</main>`
    })
  )
