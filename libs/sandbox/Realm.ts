/**
 * One QuickJS runtime + context holding the prelude, the loaded trajectories and the
 * compiled LFs of a worker process, and evaluating one LF call at a time under the
 * interrupt budget, the wall-clock deadline and the QuickJS memory limit.
 *
 * A realm only reports what happened (`Outcome`); whether that is the final verdict is the
 * worker's call (`Decider.ts`), since budget and memory outcomes near their limits depend on
 * what the realm held before and are re-decided in a fresh realm.
 */
import { DefaultIntrinsics } from "quickjs-emscripten"
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from "quickjs-emscripten"
import { HARDEN, HELPERS, LF_FILE, wrapLf } from "./Guest.ts"
import { error, infraError, ok } from "./Verdict.ts"
import type { Verdict } from "./Verdict.ts"

export interface RealmSettings {
  readonly prelude: string
  readonly memoryLimitBytes: number
  readonly processMemoryCapBytes: number
}

/** The prelude did not load: a configuration error, not a verdict. */
export class SetupError extends Error {}

export type Stop = "budget" | "deadline" | "memory cap"

/** How far the LF got, as the worker needs it to decide. */
export interface Outcome {
  readonly verdict: Verdict
  /** Interrupt-handler calls during the LF call (QuickJS calls it every 10,000 operations). */
  readonly interrupts: number
  readonly stop: Stop | null
  /** QuickJS refused an allocation: the verdict is `memory:`. */
  readonly oom: boolean
  /** State that must not outlive this evaluation was left behind: rebuild the realm. */
  readonly spoiled: boolean
}

const TRAJECTORY_CACHE = 8
const CODE_CACHE = 64
/** Interrupts (10,000 operations each) allowed for loading the prelude and for describing an exception. */
const SETUP_INTERRUPTS = 20_000
const DESCRIBE_INTERRUPTS = 50

/**
 * QuickJS's own stack check measures the WebAssembly shadow stack, but some recursion
 * (the parser, JSON, getters) spends far more of the host's native stack per level. With
 * this limit and the native stack the pool gives a worker (see `Pool.ts`), QuickJS's
 * check fires first — a deterministic "stack overflow" throw — on every path we know;
 * when the host's overflows instead, the worker is lost (an infra-error).
 */
const STACK_BYTES = 256 * 1024

const MB = 1024 * 1024
const mib = (bytes: number) => `${Math.round(bytes / MB)} MiB`

/** Counts interrupt-handler calls during one metered call and decides when to stop it. */
class Meter {
  active = false
  count = 0
  limit = 0
  deadlineAt = 0
  stop: Stop | null = null
  constructor(private readonly rssCap: number) {}

  start(limit: number, deadlineMs: number) {
    this.active = true
    this.count = 0
    this.limit = limit
    this.deadlineAt = performance.now() + deadlineMs
    this.stop = null
  }

  readonly handler = (): boolean => {
    if (!this.active) return false
    if (this.stop !== null) return true
    this.count++
    if (this.count > this.limit) this.stop = "budget"
    else if (performance.now() > this.deadlineAt) this.stop = "deadline"
    else if ((this.count & 15) === 0 && process.memoryUsage.rss() > this.rssCap) this.stop = "memory cap"
    return this.stop !== null
  }
}

interface Loaded {
  readonly value: QuickJSHandle
  readonly steps: number
}

interface Entry extends Loaded {
  readonly prefixes: Map<number, Loaded>
}

type Compiled = { readonly factory: QuickJSHandle } | { readonly syntax: string }

/** Map insertion order as recency: reading an entry moves it to the back. */
const touch = <K, V>(map: Map<K, V>, key: K): V | undefined => {
  const v = map.get(key)
  if (v !== undefined) {
    map.delete(key)
    map.set(key, v)
  }
  return v
}

export class Realm {
  private readonly trajectories = new Map<string, Entry>()
  private readonly compiled = new Map<string, Compiled>()
  private disposed = false

  private constructor(
    private readonly rt: QuickJSRuntime,
    private readonly vm: QuickJSContext,
    private readonly meter: Meter,
    private readonly helpers: ReadonlyArray<QuickJSHandle>,
    private readonly settings: RealmSettings
  ) {}

  /** Throws `SetupError` when the prelude does not load. */
  static create(module: QuickJSWASMModule, settings: RealmSettings): Realm {
    const rt = module.newRuntime()
    rt.setMaxStackSize(STACK_BYTES)
    const meter = new Meter(settings.processMemoryCapBytes)
    rt.setInterruptHandler(meter.handler)
    // No Date (a clock), and no ArrayBuffer or typed arrays: their backing stores escape the
    // QuickJS memory limit (an LF could grow the process to the WebAssembly maximum).
    const vm = rt.newContext({ intrinsics: { ...DefaultIntrinsics, Date: false, TypedArrays: false } })
    const helpers: Array<QuickJSHandle> = []
    const realm = new Realm(rt, vm, meter, helpers, settings)
    try {
      const array = vm.unwrapResult(vm.evalCode(HELPERS, "sandbox.js", { type: "global" }))
      for (let i = 0; i < 7; i++) helpers.push(vm.getProp(array, i))
      array.dispose()
      meter.start(SETUP_INTERRUPTS, 60_000)
      const prelude = vm.evalCode(settings.prelude, "prelude.js", { type: "global" })
      meter.active = false
      if (prelude.error) {
        const why = meter.stop ?? realm.describe(prelude.error)
        prelude.error.dispose()
        throw new SetupError(`prelude: ${why}`)
      }
      prelude.value.dispose()
      vm.unwrapResult(vm.evalCode(HARDEN, "sandbox.js", { type: "global" })).dispose()
      return realm
    } catch (cause) {
      realm.dispose()
      throw cause
    }
  }

  private get load() {
    return this.helpers[0]!
  }
  private get stepCount() {
    return this.helpers[1]!
  }
  private get prefixOf() {
    return this.helpers[2]!
  }
  private get run() {
    return this.helpers[3]!
  }
  private get describeFn() {
    return this.helpers[4]!
  }
  private get noLf() {
    return this.helpers[5]!
  }
  private get harden() {
    return this.helpers[6]!
  }

  /**
   * A one-line description of a thrown value, without running the LF's getters; its proxy
   * traps could still run, so they get a small budget of their own.
   */
  private describe(exception: QuickJSHandle): string {
    const meter = this.meter
    meter.start(DESCRIBE_INTERRUPTS, 1_000)
    const r = this.vm.callFunction(this.describeFn, this.vm.undefined, exception)
    meter.active = false
    if (r.error) {
      r.error.dispose()
      return "an exception that could not be described"
    }
    const text = this.vm.typeof(r.value) === "string" ? this.vm.getString(r.value) : "an exception"
    r.value.dispose()
    return text
  }

  private steps(t: QuickJSHandle): number {
    const n = this.vm.unwrapResult(this.vm.callFunction(this.stepCount, this.vm.undefined, t))
    const steps = this.vm.getNumber(n)
    n.dispose()
    return steps
  }

  private trajectory(key: string, json: string, prefix: number): Loaded | string {
    let entry = touch(this.trajectories, key)
    if (entry === undefined) {
      const text = this.vm.newString(json)
      const r = this.vm.callFunction(this.load, this.vm.undefined, text)
      text.dispose()
      if (r.error) {
        const why = this.describe(r.error)
        r.error.dispose()
        return `cannot load trajectory ${key}: ${why}`
      }
      const steps = this.steps(r.value)
      if (steps < 0) {
        r.value.dispose()
        return `trajectory ${key} has no steps array`
      }
      entry = { value: r.value, steps, prefixes: new Map() }
      this.trajectories.set(key, entry)
      if (this.trajectories.size > TRAJECTORY_CACHE) this.evictTrajectory()
    }
    if (prefix < 0 || prefix >= entry.steps) return entry
    let view = entry.prefixes.get(prefix)
    if (view === undefined) {
      const k = this.vm.newNumber(prefix)
      const value = this.vm.unwrapResult(this.vm.callFunction(this.prefixOf, this.vm.undefined, entry.value, k))
      k.dispose()
      view = { value, steps: prefix }
      entry.prefixes.set(prefix, view)
    }
    return view
  }

  private evictTrajectory() {
    const [key, entry] = this.trajectories.entries().next().value!
    this.trajectories.delete(key)
    for (const view of entry.prefixes.values()) view.value.dispose()
    entry.value.dispose()
  }

  private compile(code: string): Compiled {
    const cached = touch(this.compiled, code)
    if (cached !== undefined) return cached
    let compiled: Compiled
    // Checked as a script on its own first: the error locations are the LF's own, and a
    // source that compiles alone cannot close the factory wrapper early.
    const alone = this.vm.evalCode(code, LF_FILE, { type: "global", compileOnly: true })
    if (alone.error) {
      compiled = { syntax: this.describe(alone.error) }
      alone.error.dispose()
    } else {
      alone.value.dispose()
      const wrapped = this.vm.evalCode(wrapLf(code), LF_FILE, { type: "global" })
      if (wrapped.error) {
        compiled = { syntax: this.describe(wrapped.error) }
        wrapped.error.dispose()
      } else {
        // The factory and its `prototype` are the only objects all its evaluations share.
        this.vm.unwrapResult(this.vm.callFunction(this.harden, this.vm.undefined, wrapped.value)).dispose()
        compiled = { factory: wrapped.value }
      }
    }
    this.compiled.set(code, compiled)
    if (this.compiled.size > CODE_CACHE) {
      const [oldest, entry] = this.compiled.entries().next().value!
      this.compiled.delete(oldest)
      if ("factory" in entry) entry.factory.dispose()
    }
    return compiled
  }

  /**
   * Calls the LF once. It is stopped when the interrupt handler has been called more than
   * `limits.interrupts` times; `limits.budget` is the budget the verdict's reason names.
   */
  evaluate(
    code: string,
    key: string,
    json: string,
    prefix: number,
    limits: { readonly interrupts: number; readonly budget: number; readonly deadlineMs: number }
  ): Outcome {
    const { budget, deadlineMs } = limits
    const done = (verdict: Verdict, extra: Partial<Outcome> = {}): Outcome => ({
      verdict,
      interrupts: extra.interrupts ?? 0,
      stop: extra.stop ?? null,
      oom: extra.oom ?? false,
      spoiled: extra.spoiled ?? false
    })
    const t = this.trajectory(key, json, prefix)
    if (typeof t === "string") return done(infraError(`sandbox: ${t}`))
    const compiled = this.compile(code)
    if ("syntax" in compiled) return done(error(`syntax: ${compiled.syntax}`), { oom: isOom(compiled.syntax) })

    const { vm, rt, meter } = this
    rt.setMemoryLimit(this.settings.memoryLimitBytes)
    meter.start(limits.interrupts, deadlineMs)
    const r = vm.callFunction(this.run, vm.undefined, compiled.factory, t.value)
    meter.active = false
    rt.setMemoryLimit(-1)
    const interrupts = meter.count
    // Jobs an LF queued (promise reactions) never run; dropping the realm drops them.
    const spoiled = rt.hasPendingJob()

    if (r.error) {
      const stop = meter.stop
      let verdict: Verdict
      let oom = false
      if (stop === "budget") verdict = error(`budget: exceeded ${budget} interrupts (about ${budget * 10_000} QuickJS operations)`)
      else if (stop === "deadline") verdict = infraError(`deadline: the evaluation ran past ${deadlineMs} ms of wall-clock time`)
      else if (stop === "memory cap") verdict = infraError(`memory cap: worker RSS over ${mib(this.settings.processMemoryCapBytes)}`)
      else if (vm.sameValue(r.error, this.noLf)) verdict = error("syntax: the script does not define function labelFunction(t)")
      else {
        // QuickJS throws null when it runs out of memory while building the error itself;
        // an LF that throws null on purpose is taken at its word the same way.
        const what = vm.sameValue(r.error, vm.null) ? null : this.describe(r.error)
        oom = what === null || isOom(what)
        verdict = oom ? error(`memory: out of memory (QuickJS heap limit ${mib(this.settings.memoryLimitBytes)})`) : error(`throw: ${what}`)
      }
      r.error.dispose()
      return done(verdict, { interrupts, stop, oom, spoiled: spoiled || oom })
    }
    const verdict = this.result(r.value)
    r.value.dispose()
    return done(verdict, { interrupts, spoiled })
  }

  private result(h: QuickJSHandle): Verdict {
    const vm = this.vm
    const kind = vm.typeof(h)
    // Not bounded by the step count: a view (`fromStep`) keeps the trajectory's own indices.
    const expected = "expected a step index (an integer ≥ -1)"
    if (kind === "number") {
      const n = vm.getNumber(h)
      return Number.isInteger(n) && n >= -1 ? ok(n) : error(`result: ${expected}, got ${n}`)
    }
    if (kind === "boolean") return error(`result: ${expected}, got the boolean ${vm.dump(h)}`)
    if (kind === "string") {
      const length = vm.getProp(h, "length").consume((l) => vm.getNumber(l))
      return error(`result: ${expected}, got a string of ${length} characters`)
    }
    if (kind === "undefined") return error(`result: ${expected}, got undefined (no return value?)`)
    if (kind === "object" && vm.sameValue(h, vm.null)) return error(`result: ${expected}, got null`)
    return error(`result: ${expected}, got ${kind === "object" ? "an object" : `a ${kind}`}`)
  }

  /** Throws (a WebAssembly abort) if QuickJS finds leaked objects: the module is then unusable. */
  dispose() {
    if (this.disposed) return
    this.disposed = true
    while (this.trajectories.size > 0) this.evictTrajectory()
    for (const c of this.compiled.values()) if ("factory" in c) c.factory.dispose()
    this.compiled.clear()
    for (const h of this.helpers) h.dispose()
    this.vm.dispose()
    this.rt.dispose()
  }
}

const isOom = (description: string): boolean => description.startsWith("InternalError: out of memory")
