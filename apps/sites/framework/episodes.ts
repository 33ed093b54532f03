/**
 * Episodes: one tenant = one site + seed + its own mutable state. Starting one costs a map
 * lookup for the cached base and a call to the site's cheap `initial`, so resets are fast
 * and parallel episodes share nothing mutable.
 */
import type { AnySite } from "./site.ts"

export interface Episode {
  readonly tenant: string
  readonly site: AnySite
  readonly seed: number
  readonly base: unknown
  state: unknown
}

/** Freezing the shared base turns an accidental write by a handler into an error instead of a leak across episodes. */
const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

export const isSeed = (seed: unknown): seed is number =>
  typeof seed === "number" && Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff

export class Episodes {
  private readonly bases = new Map<string, unknown>()
  private readonly live = new Map<string, Episode>()

  constructor(
    private readonly sites: ReadonlyMap<string, AnySite>,
    /** Distinct seeds kept in the base cache; the oldest is dropped beyond this. */
    private readonly maxBases = 64
  ) {}

  base(site: AnySite, seed: number): unknown {
    const key = `${site.name}:${seed}`
    const hit = this.bases.get(key)
    if (hit !== undefined) {
      this.bases.delete(key)
      this.bases.set(key, hit)
      return hit
    }
    const made = deepFreeze(site.base(seed))
    this.bases.set(key, made)
    if (this.bases.size > this.maxBases) this.bases.delete(this.bases.keys().next().value!)
    return made
  }

  create(siteName: string, seed: number): Episode {
    const site = this.sites.get(siteName)
    if (!site) throw new Error(`unknown site '${siteName}'`)
    const base = this.base(site, seed)
    // A random id (not content): unguessable, so one episode cannot name another's.
    const tenant = `t${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`
    const episode: Episode = { tenant, site, seed, base, state: site.initial(base, seed) }
    this.live.set(tenant, episode)
    return episode
  }

  get(tenant: string): Episode | undefined {
    return this.live.get(tenant)
  }

  /** Back to the episode's initial state, keeping its tenant (and so the browser's cookie). */
  reset(tenant: string): boolean {
    const e = this.live.get(tenant)
    if (!e) return false
    e.state = e.site.initial(e.base, e.seed)
    return true
  }

  delete(tenant: string): boolean {
    return this.live.delete(tenant)
  }

  get size(): number {
    return this.live.size
  }
}
