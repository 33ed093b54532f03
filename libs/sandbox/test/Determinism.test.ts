/**
 * The same LF on the same trajectory gets the same verdict in any pool, whatever ran there
 * before — including LFs that end right at the interrupt budget or the memory limit, where
 * a warm worker's history (its interrupt counter's phase, its caches) would otherwise show.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { EvalRequest, Verdict } from "../mod.ts"
import { lf, NORMAL, startPool, T5, trajectory } from "./support/Fixtures.ts"
import type { TestPool } from "./support/Fixtures.ts"

const OPTIONS = { budget: 5, memoryLimitBytes: 16 * 1024 * 1024 } as const

/** A loop of `n` iterations: about 2 operations each, so ~25,000 is where a budget of 5 (50,000) ends. */
const spin = (n: number) => lf(`for (let i = 0; i < ${n}; i++) {} return 1`)
/** One string of `mb` MiB: near 16 MiB it depends on what else the runtime holds. */
const hoard = (mb: number) => lf(`const s = "x".repeat(${Math.round(mb * 1024 * 1024)}); return s.length > 0 ? 2 : -1`)

const SPINS = Array.from({ length: 41 }, (_, i) => 20_000 + i * 250)
const HOARDS = Array.from({ length: 13 }, (_, i) => 10 + i * 0.5)

const kinds = (verdicts: ReadonlyArray<Verdict>) =>
  verdicts.map((v) => (v.kind === "ok" ? `ok ${v.satisfiedAt}` : `${v.kind}: ${v.reason}`))

describe("determinism", () => {
  let seasoned: TestPool
  let fresh: TestPool
  beforeAll(async () => {
    ;[seasoned, fresh] = await Promise.all([startPool(OPTIONS), startPool(OPTIONS)])
  })
  afterAll(() => Promise.all([seasoned.dispose(), fresh.dispose()]))

  test("verdicts at the edge of the budget and of the memory limit do not depend on history", async () => {
    const probes: ReadonlyArray<EvalRequest> = [
      ...SPINS.map((n) => ({ code: spin(n), trajectory: T5 })),
      ...HOARDS.map((mb) => ({ code: hoard(mb), trajectory: T5 }))
    ]
    // One pool first loads other trajectories and runs loops of odd lengths between the
    // probes, so each probe starts at another phase of the interrupt counter and with
    // other things in the heap; the other pool runs the probes alone, in reverse order.
    const bigs = [0, 1, 2].map((i) => ({ key: `big${i}`, value: trajectory(1500 + i) }))
    const noisy: Array<EvalRequest> = [{ code: NORMAL, trajectory: bigs[0]! }]
    probes.forEach((p, i) => noisy.push({ code: spin(137 * i + 11), trajectory: bigs[i % 3]! }, p))
    const seasonedVerdicts = (await seasoned.evaluateBatch(noisy)).filter((_, i) => i > 0 && i % 2 === 0)
    const freshVerdicts = [...(await fresh.evaluateBatch([...probes].reverse()))].reverse()

    expect(kinds(seasonedVerdicts)).toEqual(kinds(freshVerdicts))
    // The sweeps do cross both edges: some probes pass, some are stopped.
    const spins = kinds(freshVerdicts.slice(0, SPINS.length))
    expect(spins).toContain("ok 1")
    expect(spins).toContain("error: budget: exceeded 5 interrupts (about 50000 QuickJS operations)")
    const hoards = kinds(freshVerdicts.slice(SPINS.length))
    expect(hoards).toContain("ok 2")
    expect(hoards).toContain("error: memory: out of memory (QuickJS heap limit 16 MiB)")
    // And each sweep changes its verdict once: a longer loop never passes where a shorter one failed.
    for (const sweep of [spins, hoards]) expect(sweep.filter((v, i) => i > 0 && v !== sweep[i - 1]).length).toBe(1)
  })

  test("ordinary and hostile LFs get the same verdicts in a fresh pool", async () => {
    const codes = [
      NORMAL,
      lf(`return validateElement(t, "button", "Checkout")`),
      lf(`throw new TypeError("bad " + t.steps.length)`),
      lf(`return "yes"`),
      lf(`while (true) {}`),
      `function labelFunction(t) { return ( }`,
      lf(`return t.steps.map((s) => s.index).reduce((a, b) => a + b, 0)`)
    ]
    const requests = codes.map((code) => ({ code, trajectory: T5 }))
    const first = await seasoned.evaluateBatch(requests)
    expect(kinds(await fresh.evaluateBatch(requests))).toEqual(kinds(first))
    expect(kinds(first)).toEqual([
      "ok 3",
      "ok 2",
      "error: throw: TypeError: bad 5 (at labelFunction.js:1:62)",
      "error: result: expected a step index (an integer ≥ -1), got a string of 3 characters",
      "error: budget: exceeded 5 interrupts (about 50000 QuickJS operations)",
      "error: syntax: SyntaxError: unexpected token in expression: '}' (at labelFunction.js:1:38)",
      "ok 10"
    ])
  })
})
