/**
 * The instances of one pack, kept ready ahead of demand. At most `pool` instances live at
 * once (starting, ready, leased or being reset or stopped), each on its own port; free
 * capacity is filled at once, in parallel, so an `acquire` usually finds one ready.
 *
 * What a lease's release does depends on the pack's isolation: `instance-per-episode`
 * stops the instance (a fresh one takes its place); `reset-between-episodes` resets it for
 * the next lease, and stops it when the reset fails; `shared-readonly` does nothing, and
 * every lease shares the least-leased ready instance.
 *
 * A failed start is retried; after `MAX_FAILED_STARTS` in a row, waiting acquires fail
 * with the last start's one line, and the next acquire tries afresh.
 *
 * A command that needs instances one at a time (`record`) asks for a pool of its own size
 * without preparing ahead (`PoolOptions`): an instance starts only for an acquire waiting for
 * it, so no spare one is started only to be stopped when the command ends.
 */
import { Effect, type Scope } from "effect"
import { startInstance, stopInstance, resetInstance } from "./Instance.ts"
import type { Instance, InstanceRef } from "./Instance.ts"
import { InstanceError } from "./Instance.ts"
import type { Pack } from "./Pack.ts"

export const MAX_FAILED_STARTS = 3

/** An instance lent for one episode. */
export interface Lease {
  readonly instance: InstanceRef
  /** The origins an episode may reach: the pack's list, `{base}` filled with the base URL's origin. */
  readonly origins: ReadonlyArray<string>
  /**
   * Gives the instance back: it is stopped or reset (per the pack's isolation) in the
   * background, so this returns at once. Idempotent, never fails.
   */
  release(): Effect.Effect<void>
}

export interface Pool {
  acquire(): Effect.Effect<Lease, InstanceError>
  /** The instance behind a lease of this pool. */
  instanceOf(lease: Lease): Instance | undefined
}

export interface PoolOptions {
  /** At most this many instances at once, instead of the pack's `pool`. */
  readonly size?: number
  /** False: start an instance only when an acquire waits for one (default true: fill the pool at once). */
  readonly ahead?: boolean
}

interface Slot {
  readonly instance: Instance
  leases: number
}

/** The pack's origins for an instance: `{base}` is the base URL's origin; duplicates dropped. */
export const originsFor = (pack: Pack, baseUrl: string): ReadonlyArray<string> => [
  ...new Set(pack.config.origins.map((o) => new URL(o === "{base}" ? baseUrl : o).origin))
]

/** The pool's state; every change happens in one synchronous step, so no two fibers interleave inside one. */
class Slots {
  /** Every instance the pool holds: ready, leased, or being reset or stopped. */
  readonly all = new Set<Slot>()
  /** Ready instances not leased (exclusive modes), or every ready instance (shared). */
  readonly ready: Array<Slot> = []
  readonly leases = new WeakMap<Lease, Instance>()
  /** Instances alive or starting: at most `size`. */
  occupied = 0
  /** Acquires waiting for an instance: without preparing ahead, what starts are made for. */
  waiting = 0
  failures = 0
  /** Set when a run of failed starts made the pool give up. */
  broken: InstanceError | null = null
  closed = false
  private readonly listeners = new Set<() => void>()
  private readonly name: string
  private readonly shared: boolean

  private readonly size: number
  private readonly ahead: boolean

  constructor(
    private readonly pack: Pack,
    private readonly scope: Scope.Scope,
    options: PoolOptions
  ) {
    this.name = pack.config.name
    this.shared = pack.config.isolation === "shared-readonly"
    this.size = Math.max(1, Math.min(options.size ?? pack.config.pool, pack.config.pool))
    this.ahead = options.ahead !== false
  }

  /** Whether another start is wanted: capacity is free and, without preparing ahead, an acquire waits for it. */
  private wantsStart(): boolean {
    if (this.closed || this.broken !== null || this.occupied >= this.size) return false
    if (this.ahead) return true
    const starting = this.occupied - this.all.size
    return starting + this.ready.length < this.waiting
  }

  notify(): void {
    const woken = [...this.listeners]
    this.listeners.clear()
    for (const wake of woken) wake()
  }

  /** Waits for the next change; an interrupted waiter loses nothing (slots are taken after waking). */
  readonly changed = Effect.callback<void>((resume) => {
    const wake = () => resume(Effect.void)
    this.listeners.add(wake)
    return Effect.sync(() => void this.listeners.delete(wake))
  })

  /** Runs in the pool's scope: closing it interrupts a start (which then stops what it spawned). */
  private background(effect: Effect.Effect<unknown>): Effect.Effect<void> {
    return Effect.asVoid(Effect.forkIn(effect, this.scope))
  }

  /** Starts instances, in parallel, until the pool is full. */
  readonly fill: Effect.Effect<void> = Effect.suspend(() => {
    const starts: Array<Effect.Effect<void>> = []
    while (this.wantsStart()) {
      this.occupied++
      const start = startInstance(this.pack).pipe(
        Effect.matchEffect({ onSuccess: (i) => this.started(i), onFailure: (e) => this.failed(e) })
      )
      starts.push(this.background(start))
    }
    return Effect.all(starts, { discard: true })
  })

  private started(instance: Instance): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.failures = 0
      const slot = { instance, leases: 0 }
      this.all.add(slot)
      if (this.closed) return this.retire(slot)
      this.ready.push(slot)
      this.notify()
      return Effect.void
    })
  }

  private failed(error: InstanceError): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.occupied--
      this.failures++
      if (this.failures < MAX_FAILED_STARTS) return this.fill
      this.broken = new InstanceError({
        app: this.name,
        reason: `app ${this.name}: ${this.failures} starts failed in a row; last: ${error.reason}`
      })
      this.notify()
      return Effect.void
    })
  }

  /** Stops the slot's instance, then frees its capacity for a fresh one. */
  private retire(slot: Slot): Effect.Effect<void> {
    return stopInstance(slot.instance).pipe(
      Effect.ensuring(
        Effect.suspend(() => {
          this.all.delete(slot)
          this.occupied--
          this.notify()
          return this.fill
        })
      )
    )
  }

  /** What a release does per isolation (shared: nothing). */
  private giveBack(slot: Slot): Effect.Effect<void> {
    if (this.pack.config.isolation === "instance-per-episode") return this.retire(slot)
    return resetInstance(slot.instance).pipe(
      Effect.matchEffect({
        onSuccess: () =>
          Effect.sync(() => {
            this.ready.push(slot)
            this.notify()
          }),
        onFailure: () => this.retire(slot)
      })
    )
  }

  leaseOf(slot: Slot): Lease {
    let released = false
    slot.leases++
    const lease: Lease = {
      instance: { baseUrl: slot.instance.baseUrl, handle: slot.instance.handle },
      origins: originsFor(this.pack, slot.instance.baseUrl),
      release: () =>
        Effect.suspend(() => {
          if (released) return Effect.void
          released = true
          slot.leases--
          return this.shared || this.closed ? Effect.void : this.background(this.giveBack(slot))
        })
    }
    this.leases.set(lease, slot.instance)
    return lease
  }

  /** Why the pool gave up, if it did (a method: callers test it again after waiting). */
  gaveUp(): InstanceError | null {
    return this.broken
  }

  /** A ready instance to lease: the next one (exclusive), or the least leased (shared). */
  take(): Slot | undefined {
    if (!this.shared) return this.ready.shift()
    return this.ready.reduce<Slot | undefined>((best, s) => (best === undefined || s.leases < best.leases ? s : best), undefined)
  }

  /** Stops everything the pool holds; starts in flight are interrupted by the scope (they stop themselves). */
  readonly close: Effect.Effect<void> = Effect.suspend(() => {
    this.closed = true
    this.notify()
    this.ready.length = 0
    return Effect.forEach([...this.all], (slot) => stopInstance(slot.instance), { concurrency: "unbounded", discard: true })
  })
}

/** A pool of the pack's instances, living as long as the scope: closing it stops them all. */
export const makePool = (pack: Pack, options: PoolOptions = {}): Effect.Effect<Pool, never, Scope.Scope> =>
  Effect.gen(function* () {
    const slots = new Slots(pack, yield* Effect.scope, options)
    const name = pack.config.name
    const acquire = Effect.fnUntraced(function* (): Effect.fn.Return<Lease, InstanceError> {
      // After the pool gave up on a run of failed starts, a new acquire tries again.
      if (slots.broken !== null) {
        slots.broken = null
        slots.failures = 0
      }
      for (;;) {
        if (slots.closed) return yield* new InstanceError({ app: name, reason: `app ${name}: the pool is closed` })
        const slot = slots.take()
        if (slot !== undefined) return slots.leaseOf(slot)
        // A start that failed while this acquire waited may have made the pool give up.
        const broken = slots.gaveUp()
        if (broken !== null) return yield* broken
        slots.waiting++
        yield* slots.fill.pipe(Effect.andThen(slots.changed), Effect.ensuring(Effect.sync(() => slots.waiting--)))
      }
    })
    // Registered before any start is forked: the scope interrupts the starts first, then this runs.
    yield* Effect.addFinalizer(() => slots.close)
    yield* slots.fill
    return { acquire, instanceOf: (lease) => slots.leases.get(lease) } satisfies Pool
  })
