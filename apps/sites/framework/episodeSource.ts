/**
 * The sites server as the web environment's `EpisodeSource`: `open` is `POST /__core/episodes`,
 * `discard` is `DELETE /__core/episodes/<tenant>`. Over HTTP, so it works the same against a
 * server in another process (`bun core sites serve`).
 */
import type { EpisodeSource } from "@core/env-web"

export const episodeSource = (origin: string): EpisodeSource => ({
  open: async (site, seed) => {
    const res = await fetch(`${origin}/__core/episodes`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ site, seed }) })
    if (res.status !== 201) throw new Error(`POST /__core/episodes answered ${res.status}: ${(await res.text()).slice(0, 200)}`)
    const body = (await res.json()) as { tenant: string; startUrl: string }
    return { episode: body.tenant, startUrl: body.startUrl }
  },
  discard: async (episode) => {
    await fetch(`${origin}/__core/episodes/${encodeURIComponent(episode)}`, { method: "DELETE" })
  }
})
