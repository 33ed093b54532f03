/**
 * A small LF API and trajectories for the sandbox tests, and a pool that lives across the
 * tests of a describe block (real worker processes: started once, killed in afterAll).
 */
import { Effect, ManagedRuntime } from "effect"
import type { LfElement, LfStep, LfTrajectory } from "@core/domain"
import { Sandbox } from "../../mod.ts"
import type { EvalRequest, SandboxOptions, Verdict } from "../../mod.ts"

/** Enough of an LF API to write realistic LFs; written in the same style as the real one. */
export const PRELUDE = `
function norm(s) { return String(s == null ? "" : s).replace(/\\s+/g, " ").trim().toLowerCase() }
function validateClick(t, role, name) {
  for (var i = 0; i < t.steps.length; i++) {
    var a = t.steps[i].action
    if (a.kind === "click" && norm(a.role) === norm(role) && norm(a.name) === norm(name)) return t.steps[i].index
  }
  return -1
}
function validateElement(t, role, name) {
  for (var i = 0; i < t.steps.length; i++) {
    var list = t.steps[i].elements || []
    for (var j = 0; j < list.length; j++) if (norm(list[j].role) === norm(role) && norm(list[j].name) === norm(name)) return t.steps[i].index
  }
  return -1
}
function validateStatus(t, status) {
  for (var i = t.steps.length - 1; i >= 0; i--) if (t.steps[i].action.kind === "status") return norm(t.steps[i].action.status) === norm(status) ? t.steps[i].index : -1
  return -1
}
`

const element = (role: string, name: string): LfElement => ({ role, name, text: name, value: null, checked: null })

const step = (index: number, kind: "click" | "status", name: string, elements: ReadonlyArray<LfElement>): LfStep => ({
  index,
  action: {
    kind,
    role: kind === "click" ? "button" : null,
    name: kind === "click" ? name : null,
    text: null,
    typed: null,
    submit: false,
    value: null,
    key: null,
    url: null,
    direction: null,
    answer: null,
    status: kind === "status" ? name : null,
    app: null
  },
  urlBefore: `/shop/${index}`,
  urlAfter: `/shop/${index + 1}`,
  appBefore: null,
  appAfter: null,
  elements,
  error: null
})

/** Clicks "Step 0" … "Step n-2", then `status complete`; "Checkout" shows up after step 2. */
export const trajectory = (n: number): LfTrajectory => ({
  startUrl: "/shop/0",
  initialElements: null,
  steps: Array.from({ length: n }, (_, i) =>
    i === n - 1
      ? step(i, "status", "complete", [])
      : step(i, "click", `Step ${i}`, [element("link", "Home"), ...(i >= 2 ? [element("button", "Checkout")] : [])])
  )
})

export const T5 = { key: "t5", value: trajectory(5) }

/** A normal LF and what it gives on T5: the click on "Step 3". */
export const NORMAL = `function labelFunction(t) { return validateClick(t, "button", "Step 3") }`
export const NORMAL_ON_T5 = 3

export const lf = (body: string) => `function labelFunction(t) { ${body} }`

export interface TestPool {
  evaluate(request: EvalRequest): Promise<Verdict>
  evaluateBatch(requests: ReadonlyArray<EvalRequest>): Promise<ReadonlyArray<Verdict>>
  dispose(): Promise<void>
}

export const startPool = async (options: SandboxOptions = {}): Promise<TestPool> => {
  const runtime = ManagedRuntime.make(Sandbox.layer({ prelude: PRELUDE, ...options }))
  await runtime.context()
  return {
    evaluate: (request) =>
      runtime.runPromise(
        Effect.gen(function* () {
          return yield* (yield* Sandbox).evaluate(request)
        })
      ),
    evaluateBatch: (requests) =>
      runtime.runPromise(
        Effect.gen(function* () {
          return yield* (yield* Sandbox).evaluateBatch(requests)
        })
      ),
    dispose: () => runtime.dispose()
  }
}

/** The process ids of this process's children (the workers of every live pool). */
export const childPids = (): Set<number> => {
  const out = Bun.spawnSync(["pgrep", "-P", String(process.pid)]).stdout.toString()
  return new Set(
    out
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map(Number)
  )
}
