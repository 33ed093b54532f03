/**
 * @core/sites — the bundled web apps CORE's web environment acts in, served by one loopback
 * server with per-episode state. The state API client lives apart, in `./eval/`, because
 * only evaluation code may read ground truth (policies and label functions never do).
 */
import { Schema } from "effect"
import { createSitesServer } from "./framework/server.ts"
import type { SitesServer, StartOptions } from "./framework/server.ts"
import { sites } from "./registry.ts"

/** Starts every registered site (or the given ones) on 127.0.0.1; `port: 0` (default) picks a free port. */
export const startSites = (options: Partial<StartOptions> = {}): SitesServer =>
  createSitesServer({ ...options, sites: options.sites ?? sites })

/** The sites' server could not take its address. */
export class ListenFailed extends Schema.TaggedError<ListenFailed>()("ListenFailed", {
  address: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `cannot listen on ${this.address}: ${this.reason}`
  }
}

export { sites, siteByName } from "./registry.ts"
export { createSitesServer, EPISODE_TOKEN_HEADER, STATE_TOKEN_HEADER, TENANT_COOKIE } from "./framework/server.ts"
export { episodeSource } from "./framework/episodeSource.ts"
export type { SitesServer, StartOptions } from "./framework/server.ts"
export { defineSite, matchPath, safePath, splitEpisodeOptions, withEpisodeOptions } from "./framework/site.ts"
export type { AnySite, Ctx, EpisodeOptions, Method, Reply, Route, SiteDef } from "./framework/site.ts"
export { documentHtml, escapeHtml, html, Html, htmlResponse, raw } from "./framework/html.ts"
export type { Part } from "./framework/html.ts"
export { hashSeed, rng } from "./framework/prng.ts"
export type { Rng } from "./framework/prng.ts"
export type { Episode } from "./framework/episodes.ts"
export { shop } from "./shop/mod.ts"
export type { ShopBase, ShopState } from "./shop/mod.ts"
export { forum } from "./forum/mod.ts"
export { travel } from "./travel/mod.ts"
