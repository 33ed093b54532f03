/**
 * The sites server as the web environment's `EpisodeSource`: `open` is `POST /__core/episodes`,
 * `discard` is `DELETE /__core/episodes/<tenant>`, both with the server's episode token. Over
 * HTTP, so it works the same against a server in another process (`bun core sites serve --json`
 * prints its origin and episode token).
 */
import type { EpisodeSource } from "@core/environment"
import { EPISODE_TOKEN_HEADER } from "./server.ts"

export const episodeSource = (server: { readonly origin: string; readonly episodeToken: string }): EpisodeSource => ({
  open: async (site, seed, path) => {
    const res = await fetch(`${server.origin}/__core/episodes`, {
      method: "POST",
      headers: { "content-type": "application/json", [EPISODE_TOKEN_HEADER]: server.episodeToken },
      body: JSON.stringify(path === undefined ? { site, seed } : { site, seed, path })
    })
    if (res.status !== 201) throw new Error(`POST /__core/episodes answered ${res.status}: ${(await res.text()).slice(0, 200)}`)
    const body = (await res.json()) as { tenant: string; startUrl: string }
    return { episode: body.tenant, startUrl: body.startUrl }
  },
  discard: async (episode) => {
    await fetch(`${server.origin}/__core/episodes/${encodeURIComponent(episode)}`, {
      method: "DELETE",
      headers: { [EPISODE_TOKEN_HEADER]: server.episodeToken }
    })
  }
})
