/**
 * Run by Pool.test.ts as its own process: one evaluation in a scoped sandbox, then nothing.
 * It never calls process.exit, so it ends only if the closed scope left no worker, timer or
 * channel behind. Prints the verdict and the workers' process ids.
 */
import { Effect } from "effect"
import { Sandbox } from "../../mod.ts"
import { childPids, NORMAL, PRELUDE, T5 } from "./Fixtures.ts"

const program = Effect.gen(function* () {
  const verdict = yield* (yield* Sandbox).evaluate({ code: NORMAL, trajectory: T5 })
  return { verdict, workers: [...childPids()] }
})

const report = await Effect.runPromise(Effect.scoped(Effect.provide(program, Sandbox.layer({ prelude: PRELUDE }))))
console.log(JSON.stringify(report))
