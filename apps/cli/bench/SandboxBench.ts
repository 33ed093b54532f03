/**
 * `bench sandbox`: evaluations per second of one realistic label function over a
 * median-size real trajectory, in ONE sandbox worker process, against the same LF run
 * natively in this process (`new Function` with the same LF API prelude) in the same run
 * (a ratio to native, on the same machine under the same load). Target: 5,000 evaluations/s.
 *
 * The trajectory is already loaded (the worker caches it by key; the warm-up loads it), so
 * what is measured is the steady state of verification: batches of evaluations of a
 * compiled LF, each through IPC, QuickJS and back, with every guard (interrupt budget,
 * memory limit, deadline) on.
 *
 * `fixtures/trajectory.json` is the expert demo `shop-change-email-1` (core-demo v1, the
 * median by size of the 18 scripted shop demos: 5 steps, 79 elements) converted with
 * `fromDemoSteps` + `lfElements`.
 */
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { LF_API_SOURCE, nativeLabelFunction } from "@core/domain"
import type { LfTrajectory } from "@core/domain"
import { Sandbox } from "@core/sandbox"
import type { EvalRequest, Verdict } from "@core/sandbox"
import { interleaved, perSecond, ratio, shares } from "./Measure.ts"
import { BenchError } from "./StoreBench.ts"

export const SANDBOX_TARGET_EVALS_PER_S = 5000

/** Several validate-style calls: every step, and every element of every step (the Checkout probe finds none). */
export const BENCH_LF = `function labelFunction(t) {
  var opened = validateClick(t, "link", "Edit account settings")
  var typed = validateType(t, "elena.16@example.org", "Email address")
  var saved = validateClick(t, "button", "Save settings", { urlAfter: "^/shop/account" })
  var field = validateElement(t, "textbox", "Email address")
  var checkout = validateElement(t, "button", "Checkout")
  var back = validateUrl(t, "^/shop/account\\\\?m=settings")
  return checkout < 0 && field >= 0 && back >= saved ? inOrder(opened, typed, saved) : -1
}`

export interface SandboxBenchResult {
  readonly evals_per_s: number
  readonly native_evals_per_s: number
  /** Sandbox ÷ native, from the printed rates. */
  readonly ratio: number
  readonly target_evals_per_s: number
  readonly ok: boolean
  readonly trajectory_steps: number
  readonly trajectory_elements: number
}

export interface SandboxBenchOptions {
  /** Evaluations per side. */
  readonly evaluations: number
  readonly progress?: (line: string) => void
}

const ROUNDS = 10

const deepFreeze = <A>(value: A): A => {
  if (typeof value === "object" && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

export const loadBenchTrajectory = (): LfTrajectory =>
  JSON.parse(readFileSync(join(import.meta.dir, "fixtures", "trajectory.json"), "utf8")) as LfTrajectory

export const runSandboxBench = (options: SandboxBenchOptions) =>
  Effect.gen(function* () {
    const log = options.progress ?? (() => undefined)
    // Frozen on both sides: the sandbox's copy is deep-frozen too.
    const trajectory = deepFreeze(loadBenchTrajectory())
    const steps = trajectory.steps.length
    const elements = trajectory.steps.reduce((n, s) => n + (s.elements?.length ?? 0), 0)
    const native = nativeLabelFunction(BENCH_LF)
    const expected = native(trajectory)
    if (typeof expected !== "number" || expected < 0) {
      return yield* new BenchError({ message: `the bench LF does not hold on the fixture natively (got ${String(expected)})` })
    }
    const request: EvalRequest = { code: BENCH_LF, trajectory: { key: "bench-sandbox-fixture", value: trajectory } }
    const check = (verdicts: ReadonlyArray<Verdict>) =>
      Effect.suspend(() => {
        const wrong = verdicts.find((v) => v.kind !== "ok" || v.satisfiedAt !== expected)
        return wrong === undefined
          ? Effect.succeed(verdicts.length)
          : Effect.fail(new BenchError({ message: `the sandbox disagrees with native (step ${expected}): ${JSON.stringify(wrong)}` }))
      })
    const sizes = shares(options.evaluations, ROUNDS)
    const batches = sizes.map((n) => Array.from({ length: n }, () => request))
    let sink = 0

    log(`bench sandbox: [1/3] one worker, LF API prelude; trajectory ${steps} steps, ${elements} elements`)
    const sandbox = yield* Sandbox
    log("bench sandbox: [2/3] warm-up (loads the trajectory and compiles the LF in the worker)")
    yield* check(yield* sandbox.evaluateBatch(batches[0]!))
    for (let i = 0; i < sizes[0]!; i++) sink += native(trajectory) as number

    log(`bench sandbox: [3/3] ${options.evaluations} evaluations each side in ${ROUNDS} interleaved rounds of ~${sizes[0]}`)
    const tally = yield* interleaved(
      ROUNDS,
      (round) => Effect.flatMap(sandbox.evaluateBatch(batches[round]!), check),
      (round) =>
        Effect.sync(() => {
          for (let i = 0; i < sizes[round]!; i++) sink += native(trajectory) as number
          return sizes[round]!
        })
    )
    if (sink !== expected * (sizes[0]! + options.evaluations)) {
      return yield* new BenchError({ message: "native evaluations disagree with each other" })
    }
    const evals_per_s = perSecond(tally.ours)
    const native_evals_per_s = perSecond(tally.raw)
    return {
      evals_per_s,
      native_evals_per_s,
      ratio: ratio(evals_per_s, native_evals_per_s) ?? 0,
      target_evals_per_s: SANDBOX_TARGET_EVALS_PER_S,
      ok: evals_per_s >= SANDBOX_TARGET_EVALS_PER_S,
      trajectory_steps: steps,
      trajectory_elements: elements
    } satisfies SandboxBenchResult
  }).pipe(Effect.provide(Sandbox.layer({ prelude: LF_API_SOURCE, workers: 1 })))
