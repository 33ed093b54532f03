/**
 * Hostile label functions against real worker processes: each costs one verdict, and the
 * same pool evaluates a normal LF correctly right after it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect, Exit } from "effect"
import { LF_API_SOURCE, nativeLabelFunction } from "@core/domain"
import { Sandbox } from "../mod.ts"
import type { Verdict } from "../mod.ts"
import { lf, NORMAL, NORMAL_ON_T5, startPool, T5, trajectory } from "./support/Fixtures.ts"
import type { TestPool } from "./support/Fixtures.ts"

const reasonOf = (v: Verdict): string => (v.kind === "ok" ? `ok ${v.satisfiedAt}` : `${v.kind}: ${v.reason}`)

describe("hostile label functions", () => {
  let pool: TestPool
  beforeAll(async () => {
    // A small heap keeps the bombs quick; the rules are the same.
    pool = await startPool({ memoryLimitBytes: 32 * 1024 * 1024 })
  })
  afterAll(() => pool.dispose())

  const hostile = async (code: string): Promise<Verdict> => {
    const verdict = await pool.evaluate({ code, trajectory: T5 })
    // The pool is still fine: a normal LF right after gets its real answer.
    expect(await pool.evaluate({ code: NORMAL, trajectory: T5 })).toEqual({ kind: "ok", satisfiedAt: NORMAL_ON_T5 })
    return verdict
  }

  test("a normal LF gets the step that satisfies it, or -1", async () => {
    expect(await pool.evaluate({ code: NORMAL, trajectory: T5 })).toEqual({ kind: "ok", satisfiedAt: 3 })
    expect(await pool.evaluate({ code: lf(`return validateElement(t, "button", "Checkout")`), trajectory: T5 })).toEqual({
      kind: "ok",
      satisfiedAt: 2
    })
    expect(await pool.evaluate({ code: lf(`return validateClick(t, "button", "Pay")`), trajectory: T5 })).toEqual({
      kind: "ok",
      satisfiedAt: -1
    })
  })

  test("an endless loop is error: budget", async () => {
    const v = await hostile(lf(`while (true) {}`))
    expect(v.kind).toBe("error")
    expect(reasonOf(v)).toStartWith("error: budget: exceeded 1000 interrupts")
    // try/catch cannot swallow the interrupt.
    expect(reasonOf(await hostile(lf(`for (;;) { try { while (true) {} } catch (e) {} }`)))).toStartWith("error: budget:")
  })

  test("an allocation bomb is error: memory (or an infra-error)", async () => {
    const v = await hostile(lf(`const a = []; while (true) a.push([a.length, "item"])`))
    expect(reasonOf(v)).toMatch(/^(error: memory: out of memory \(QuickJS heap limit 32 MiB\)|infra-error: memory cap)/)
    // Catching the out-of-memory error and allocating on does not get past the limit.
    const stubborn = lf(`let s = []; for (;;) { try { s = [s, s.length, "pad"] } catch (e) { s = [s, e] } }`)
    expect(reasonOf(await hostile(stubborn))).toMatch(/^(error: memory: |infra-error: )/)
  })

  test("a 100 MB string result is error: memory (or an infra-error)", async () => {
    const v = await hostile(lf(`return "x".repeat(100 * 1024 * 1024)`))
    expect(reasonOf(v)).toMatch(/^(error: memory: out of memory|infra-error: )/)
  })

  test("no host globals: constructor.constructor, process, require, Bun, fetch", async () => {
    const escape = await hostile(lf(`return this.constructor.constructor("return process")()`))
    expect(reasonOf(escape)).toBe("error: throw: ReferenceError: 'process' is not defined (at <input>:3:8)")
    expect(reasonOf(await hostile(lf(`return globalThis.process.pid`)))).toStartWith(
      "error: throw: TypeError: cannot read property 'pid' of undefined"
    )
    expect(reasonOf(await hostile(lf(`return require("fs")`)))).toStartWith("error: throw: ReferenceError: 'require' is not defined")
    expect(reasonOf(await hostile(lf(`return t.constructor.constructor("return typeof Bun")()`)))).toStartWith("error: result:")
    // Nothing of the host is there to find: every name is undefined, so the LF returns -1.
    const probe = lf(`
      const names = ["process", "require", "Bun", "fetch", "std", "os", "console", "Date", "ArrayBuffer", "WeakRef", "setTimeout"]
      const found = names.filter((n) => globalThis[n] !== undefined || Function("return typeof " + n)() !== "undefined")
      return found.length === 0 && typeof Math.random === "undefined" ? -1 : 100 + found.length`)
    expect(await hostile(probe)).toEqual({ kind: "ok", satisfiedAt: -1 })
  })

  test("a throw is error: throw with its message and location", async () => {
    expect(reasonOf(await hostile(lf(`throw new Error("no cart in " + t.steps.length + " steps")`)))).toBe(
      "error: throw: Error: no cart in 5 steps (at labelFunction.js:1:58)"
    )
    expect(reasonOf(await hostile(lf(`throw "plain"`)))).toBe("error: throw: plain")
    // Its getters do not run while it is described.
    const sneaky = lf(`throw { get message() { while (true) {} } }`)
    expect(reasonOf(await hostile(sneaky))).toBe("error: throw: an object")
  })

  test("anything but an integer ≥ -1 is error: result", async () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["true", "got the boolean true"],
      [`"yes"`, "got a string of 3 characters"],
      ["{}", "got an object"],
      ["null", "got null"],
      ["undefined", "got undefined (no return value?)"],
      ["NaN", "got NaN"],
      ["1.5", "got 1.5"],
      ["-2", "got -2"],
      ["Infinity", "got Infinity"],
      ["10n", "got a bigint"]
    ]
    const verdicts = await pool.evaluateBatch(cases.map(([value]) => ({ code: lf(`return ${value}`), trajectory: T5 })))
    verdicts.forEach((v, i) => expect(reasonOf(v)).toBe(`error: result: expected a step index (an integer ≥ -1), ${cases[i]![1]}`))
    expect(await pool.evaluate({ code: NORMAL, trajectory: T5 })).toEqual({ kind: "ok", satisfiedAt: NORMAL_ON_T5 })
  })

  test("a syntax error, an import, or no labelFunction is error: syntax", async () => {
    expect(reasonOf(await hostile(`function labelFunction(t) { return 1 +; }`))).toBe(
      "error: syntax: SyntaxError: unexpected token in expression: ';' (at labelFunction.js:1:39)"
    )
    expect(reasonOf(await hostile(`import fs from "fs"\nfunction labelFunction(t) { return 0 }`))).toStartWith("error: syntax: SyntaxError")
    expect(reasonOf(await hostile(`function labelFn(t) { return 0 }`))).toBe(
      "error: syntax: the script does not define function labelFunction(t)"
    )
    // Closing the factory wrapper early does not compile.
    expect(reasonOf(await hostile(`}); let leaked = 1; (function () { function labelFunction(t) { return 0 }`))).toStartWith(
      "error: syntax: SyntaxError"
    )
  })

  test("deep recursion is error (stack overflow), in the LF, in JSON, in getters, in the parser", async () => {
    expect(reasonOf(await hostile(lf(`const f = (n) => f(n + 1) + 1; return f(0)`)))).toStartWith(
      "error: throw: InternalError: stack overflow"
    )
    expect(reasonOf(await hostile(lf(`return JSON.parse("[".repeat(200000) + "]".repeat(200000)).length`)))).toMatch(
      /^error: throw: \w+Error: stack overflow/
    )
    expect(reasonOf(await hostile(lf(`const o = { get x() { return this.x } }; return o.x`)))).toMatch(
      /^error: throw: \w+Error: stack overflow/
    )
    expect(reasonOf(await hostile(lf(`return ${"(".repeat(100000)}1${")".repeat(100000)}`)))).toMatch(
      /^error: syntax: \w+Error: stack overflow/
    )
  })

  test("no LF can leave state behind for itself or for another LF", async () => {
    const counter = `var calls = 0; function labelFunction(t) { return calls++ }`
    expect(await pool.evaluateBatch([0, 1, 2].map(() => ({ code: counter, trajectory: T5 })))).toEqual(
      [0, 0, 0].map((satisfiedAt) => ({ kind: "ok", satisfiedAt }))
    )
    const vandal = lf(`
      "use strict"
      const tries = [
        () => { Array.prototype.indexOf = () => 0 },
        () => { Object.prototype.polluted = 1 },
        () => { globalThis.validateClick = () => 0 },
        () => { String.prototype.toLowerCase = () => "step 3" },
        () => { t.steps[0].action.name = "Step 3" },
        () => { t.steps.push(t.steps[0]) },
        () => { norm.cache = {} },
        () => { globalThis.extra = 1 }
      ]
      let refused = 0
      for (const f of tries) { try { f() } catch (e) { refused++ } }
      return refused === tries.length ? -1 : refused`)
    expect(await pool.evaluate({ code: vandal, trajectory: T5 })).toEqual({ kind: "ok", satisfiedAt: -1 })
    expect(
      await pool.evaluate({ code: lf(`return ({}).polluted === undefined ? validateClick(t, "button", "Step 0") : 99`), trajectory: T5 })
    ).toEqual({ kind: "ok", satisfiedAt: 0 })
    expect(await pool.evaluate({ code: NORMAL, trajectory: T5 })).toEqual({ kind: "ok", satisfiedAt: NORMAL_ON_T5 })
  })

  test("prefix: the LF sees only steps[0..k)", async () => {
    const status = lf(`return validateStatus(t, "complete")`)
    const length = lf(`return t.steps.length - 1`)
    const verdicts = await pool.evaluateBatch([
      { code: status, trajectory: T5 },
      { code: status, trajectory: T5, prefix: 4 },
      { code: length, trajectory: T5, prefix: 2 },
      { code: length, trajectory: T5, prefix: 0 },
      { code: length, trajectory: T5, prefix: 99 },
      { code: NORMAL, trajectory: T5, prefix: 3 },
      { code: NORMAL, trajectory: T5, prefix: 4 },
      { code: length, trajectory: T5 }
    ])
    expect(verdicts.map((v) => (v.kind === "ok" ? v.satisfiedAt : v.kind))).toEqual([4, -1, 1, -1, 4, -1, 3, 4])
  })
})

describe("wall-clock deadline", () => {
  let pool: TestPool
  beforeAll(async () => {
    pool = await startPool({ budget: 1_000_000_000, deadlineMs: 300, memoryLimitBytes: 256 * 1024 * 1024 })
  })
  afterAll(() => pool.dispose())

  test("a loop past the deadline is an infra-error, not a verdict, and the pool goes on", async () => {
    const v = await pool.evaluate({ code: lf(`while (true) {}`), trajectory: T5 })
    expect(reasonOf(v)).toBe("infra-error: deadline: the evaluation ran past 300 ms of wall-clock time")
    expect(await pool.evaluate({ code: NORMAL, trajectory: T5 })).toEqual({ kind: "ok", satisfiedAt: NORMAL_ON_T5 })
  })

  test("work QuickJS cannot interrupt gets its worker killed: an infra-error", async () => {
    // Sorting two million copies of a 1,000-character string is one native call of about
    // 17 s here (zeros sorted in under 1 s on a fast machine, so the watchdog raced the
    // sort): no interrupt handler runs in it, so only the parent's watchdog can stop it.
    const v = await pool.evaluate({ code: lf(`return Array(2000000).fill("x".repeat(1000)).sort().length`), trajectory: T5 })
    expect(reasonOf(v)).toBe("infra-error: deadline: the worker reported nothing for 1300 ms and was killed")
    expect(await pool.evaluate({ code: NORMAL, trajectory: T5 })).toEqual({ kind: "ok", satisfiedAt: NORMAL_ON_T5 })
  })
})

describe("starting", () => {
  test("a prelude that does not load fails the layer with SandboxError", async () => {
    const exit = await Effect.runPromiseExit(
      Effect.scoped(
        Effect.provide(
          Effect.gen(function* () {
            yield* Sandbox
          }),
          Sandbox.layer({ prelude: "function (" })
        )
      )
    )
    expect(Exit.isFailure(exit)).toBe(true)
    expect(String(Exit.isFailure(exit) ? exit.cause : "")).toContain("prelude: SyntaxError")
  })

  test("bad options fail the layer with SandboxError", async () => {
    const exit = await Effect.runPromiseExit(
      Effect.scoped(
        Effect.provide(
          Effect.gen(function* () {
            yield* Sandbox
          }),
          Sandbox.layer({ workers: 0 })
        )
      )
    )
    expect(String(Exit.isFailure(exit) ? exit.cause : "")).toContain("workers must be a whole number ≥ 1, got 0")
  })
})

describe("the real LF API (LF_API_SOURCE)", () => {
  test("an LF gives the same step in the sandbox as natively", async () => {
    const pool = await startPool({ prelude: LF_API_SOURCE })
    try {
      const t = trajectory(6)
      const codes = [
        lf(`return inOrder(validateClick(t, "button", "Step 1"), validateElement(t, "button", "Checkout"), validateStatus(t, "complete"))`),
        lf(`return validateUrl(t, "^/shop/4$")`),
        lf(
          `return after(validateClick(t, "button", "Step 3"), function (from) { return validateClick(t, "button", "Step 1", { from: from }) })`
        )
      ]
      const verdicts = await pool.evaluateBatch(codes.map((code) => ({ code, trajectory: { key: "t6", value: t } })))
      expect(verdicts).toEqual(codes.map((code) => ({ kind: "ok", satisfiedAt: nativeLabelFunction(code)(t) as number })))
      expect(verdicts.map((v) => (v.kind === "ok" ? v.satisfiedAt : null))).toEqual([5, 3, -1])
    } finally {
      await pool.dispose()
    }
  })
})
