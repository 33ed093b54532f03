/**
 * The only place label functions run (docs/sandbox.md): QuickJS inside a pool of killable child
 * processes. Each evaluation returns a `Verdict`; nothing an LF does fails the caller.
 *
 * @example
 * const verdicts = yield* (yield* Sandbox).evaluateBatch([
 *   { code: "function labelFunction(t) { return validateUrl(t, '/shop/cart') }", trajectory: { key: digest, value: t } },
 *   { code, trajectory: { key: digest, value: t }, prefix: 3 } // the LF sees steps 0..2 only
 * ])
 * // provided with Sandbox.layer({ prelude: LF_API_SOURCE })
 */
import { Context, Effect, Layer, Schema } from "effect"
import { Pool } from "./Pool.ts"
import type { EvalRequest, Verdict } from "./Verdict.ts"

export interface SandboxOptions {
  /** A plain script evaluated before any LF: the LF API's global functions. Default: none. */
  readonly prelude?: string
  /** Worker processes. Default 1. */
  readonly workers?: number
  /**
   * Interrupt-handler calls one evaluation may take before it is `error: budget`. QuickJS
   * calls the handler once per 10,000 operations (function calls and loop iterations), so
   * this counts work, not time: the deterministic decider. Default 1,000 (10 million
   * operations: 0.1–1 s here, depending on what the operations are).
   */
  readonly budget?: number
  /** Wall-clock limit of one evaluation; a breach is an `infra-error`, never a verdict. Default 10,000 ms. */
  readonly deadlineMs?: number
  /** QuickJS heap limit (prelude, loaded trajectories and the LF's own allocations). Default 64 MiB. */
  readonly memoryLimitBytes?: number
  /**
   * A worker whose resident memory passes this is replaced (`infra-error` if mid-evaluation):
   * the backstop for allocations the QuickJS limit misses. Default 768 MiB (a worker that
   * hit a 64 MiB QuickJS limit sits near 350 MiB).
   */
  readonly processMemoryCapBytes?: number
  /** A worker is replaced after this many evaluations. Default 100,000. */
  readonly maxEvaluationsPerProcess?: number
  /** How many times an `infra-error` is retried, on another process, before it is returned. Default 1. */
  readonly infraRetries?: number
}

export const DEFAULTS = {
  prelude: "",
  workers: 1,
  budget: 1_000,
  deadlineMs: 10_000,
  memoryLimitBytes: 64 * 1024 * 1024,
  processMemoryCapBytes: 768 * 1024 * 1024,
  maxEvaluationsPerProcess: 100_000,
  infraRetries: 1
} as const satisfies Required<SandboxOptions>

/** The sandbox cannot start: bad options, or a prelude that does not load. */
export class SandboxError extends Schema.TaggedError<SandboxError>()("SandboxError", {
  reason: Schema.String
}) {
  override get message() {
    return `sandbox: ${this.reason}`
  }
}

export class Sandbox extends Context.Service<
  Sandbox,
  {
    evaluate(request: EvalRequest): Effect.Effect<Verdict>
    /** One verdict per request, in order; the requests travel to the workers in chunks. */
    evaluateBatch(requests: ReadonlyArray<EvalRequest>): Effect.Effect<ReadonlyArray<Verdict>>
  }
>()("@core/sandbox/Sandbox") {
  /** Scoped: the workers are killed when the layer's scope closes. */
  static readonly layer = (options: SandboxOptions = {}): Layer.Layer<Sandbox, SandboxError> => Layer.effect(Sandbox, make(options))
}

const checkOptions = (options: SandboxOptions): Effect.Effect<Required<SandboxOptions>, SandboxError> => {
  const o = { ...DEFAULTS, ...options }
  const whole = (name: keyof SandboxOptions, min: number) => {
    const v = o[name]
    return typeof v === "number" && Number.isSafeInteger(v) && v >= min ? null : `${name} must be a whole number ≥ ${min}, got ${String(v)}`
  }
  const problem =
    whole("workers", 1) ??
    whole("budget", 1) ??
    whole("deadlineMs", 1) ??
    whole("memoryLimitBytes", 1024 * 1024) ??
    whole("processMemoryCapBytes", 64 * 1024 * 1024) ??
    whole("maxEvaluationsPerProcess", 1) ??
    whole("infraRetries", 0) ??
    (typeof o.prelude === "string" ? null : "prelude must be a string")
  return problem === null ? Effect.succeed(o) : Effect.fail(new SandboxError({ reason: problem }))
}

export const make = Effect.fnUntraced(function* (options: SandboxOptions = {}) {
  const o = yield* checkOptions(options)
  const pool = yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const pool = new Pool({
          prelude: o.prelude,
          workers: o.workers,
          budget: o.budget,
          deadlineMs: o.deadlineMs,
          memoryLimitBytes: o.memoryLimitBytes,
          processMemoryCapBytes: o.processMemoryCapBytes,
          maxEvaluationsPerProcess: o.maxEvaluationsPerProcess,
          infraRetries: o.infraRetries
        })
        try {
          await pool.start()
        } catch (cause) {
          await pool.close()
          throw cause
        }
        return pool
      },
      catch: (cause) => new SandboxError({ reason: `cannot start: ${cause instanceof Error ? cause.message : String(cause)}` })
    }),
    (pool) => Effect.promise(() => pool.close())
  )
  const evaluateBatch = (requests: ReadonlyArray<EvalRequest>) => Effect.promise((signal) => pool.run(requests, signal))
  return Sandbox.of({
    evaluateBatch,
    evaluate: (request) => Effect.map(evaluateBatch([request]), (verdicts) => verdicts[0]!)
  })
})
