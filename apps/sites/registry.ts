/** Every bundled site. A new site is one `defineSite` module plus one entry here. */
import type { AnySite } from "./framework/site.ts"
import { shop } from "./shop/mod.ts"
import { forum } from "./forum/mod.ts"
import { travel } from "./travel/mod.ts"

export const sites: ReadonlyArray<AnySite> = [shop, forum, travel]

export const siteByName = (name: string): AnySite | undefined => sites.find((s) => s.name === name)
