/**
 * Episodes: one tenant = one site + seed + its own mutable state. Starting one costs a map
 * lookup for the cached base and a call to the site's cheap `initial`, so resets are fast
 * and parallel episodes share nothing mutable. Live episodes are bounded: a process that
 * serves for days (or a client that starts episodes in a loop) must not grow without end.
 */
import type { AnySite, EpisodeOptions } from "./site.ts"

export interface Episode {
  readonly tenant: string
  readonly site: AnySite
  readonly seed: number
  /** Fixed when it starts, kept across resets. */
  readonly options: EpisodeOptions
  readonly base: unknown
  state: unknown
  /** Never dropped for idleness: the few episodes `sites serve` prints for a person to browse. */
  readonly pinned: boolean
  lastSeen: number
}

export interface EpisodeLimits {
  /** Live episodes at most; when full, the least recently used one is dropped for a new one. */
  readonly maxEpisodes: number
  /** An episode with no request for this long is dropped. */
  readonly idleMs: number
  /** Milliseconds since the epoch; a test passes its own to age episodes without waiting. */
  readonly now?: () => number
}

export const defaultLimits: EpisodeLimits = { maxEpisodes: 2000, idleMs: 30 * 60_000 }

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
  // Insertion order is recency order (a touch re-inserts), so idle episodes sit at the front.
  private readonly live = new Map<string, Episode>()

  constructor(
    private readonly sites: ReadonlyMap<string, AnySite>,
    private readonly limits: EpisodeLimits = defaultLimits,
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

  private now(): number {
    return (this.limits.now ?? Date.now)()
  }

  private isIdle(e: Episode, now: number): boolean {
    return !e.pinned && now - e.lastSeen >= this.limits.idleMs
  }

  private sweep(): void {
    const now = this.now()
    for (const [tenant, e] of this.live) {
      if (e.pinned) continue
      if (!this.isIdle(e, now)) break
      this.live.delete(tenant)
    }
  }

  /**
   * Drops the idle episodes (cheap: they are at the front), then, while full, the least
   * recently used. Dropping beats refusing: a harness that reads each episode's verdict and
   * moves on (never ending it) would otherwise fail once a fast run outpaced the idle time,
   * and the least recently used of thousands finished long ago. False only when every live
   * episode is pinned.
   */
  makeRoom(): boolean {
    this.sweep()
    for (const [tenant, e] of this.live) {
      if (this.live.size < this.limits.maxEpisodes) break
      if (!e.pinned) this.live.delete(tenant)
    }
    return this.live.size < this.limits.maxEpisodes
  }

  create(siteName: string, seed: number, options: { readonly pinned?: boolean; readonly options?: EpisodeOptions } = {}): Episode {
    const site = this.sites.get(siteName)
    if (!site) throw new Error(`unknown site '${siteName}'`)
    if (!this.makeRoom()) throw new Error(`all ${this.limits.maxEpisodes} live episodes are pinned`)
    const base = this.base(site, seed)
    // A random id (not content): unguessable, so one episode cannot name another's.
    const tenant = `t${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`
    const episode: Episode = {
      tenant,
      site,
      seed,
      options: options.options ?? {},
      base,
      state: site.initial(base, seed),
      pinned: options.pinned === true,
      lastSeen: this.now()
    }
    this.live.set(tenant, episode)
    return episode
  }

  /** The live episode, marked as just used; an idle one is dropped here rather than revived. */
  get(tenant: string): Episode | undefined {
    const e = this.live.get(tenant)
    if (!e) return undefined
    this.live.delete(tenant)
    const now = this.now()
    if (this.isIdle(e, now)) return undefined
    e.lastSeen = now
    this.live.set(tenant, e)
    return e
  }

  /** Back to the episode's initial state, keeping its tenant (and so the browser's cookie). */
  reset(tenant: string): boolean {
    const e = this.get(tenant)
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
