/**
 * The process pool: batches that line up with their requests across chunks and workers,
 * recycling, a worker killed mid-batch, and a Bun process that exits once the scope closes.
 */
import { describe, expect, test } from "bun:test"
import { join } from "node:path"
import type { EvalRequest, Verdict } from "../mod.ts"
import { childPids, lf, NORMAL, NORMAL_ON_T5, startPool, T5, trajectory } from "./support/Fixtures.ts"

const okAt = (satisfiedAt: number): Verdict => ({ kind: "ok", satisfiedAt })

describe("batches", () => {
  test("5,000 mixed requests on two workers come back in request order", async () => {
    const pool = await startPool({ workers: 2 })
    try {
      const trajectories = [3, 5, 8].map((n) => ({ key: `t${n}`, value: trajectory(n) }))
      // Each request's answer is computable here: which click, on which trajectory, which prefix.
      const requests: Array<EvalRequest> = []
      const expected: Array<unknown> = []
      for (let i = 0; i < 5000; i++) {
        const t = trajectories[i % 3]!
        const target = i % 9
        const prefix = i % 4 === 0 ? i % 6 : undefined
        const steps = t.value.steps.length
        const visible = prefix === undefined ? steps : Math.min(prefix, steps)
        if (i % 97 === 0) {
          requests.push({ code: lf(`throw new Error("request ${i}")`), trajectory: t })
          expected.push({
            kind: "error",
            reason: expect.stringMatching(new RegExp(`^throw: Error: request ${i} \\(at labelFunction\\.js:1:\\d+\\)$`))
          })
          continue
        }
        requests.push({
          code: lf(`return validateClick(t, "button", "Step ${target}")`),
          trajectory: t,
          ...(prefix === undefined ? {} : { prefix })
        })
        expected.push(okAt(target < steps - 1 && target < visible ? target : -1))
      }
      const verdicts = await pool.evaluateBatch(requests)
      expect(verdicts.length).toBe(5000)
      expect(verdicts as ReadonlyArray<unknown>).toEqual(expected)
      expect(verdicts.filter((v) => v.kind === "ok" && v.satisfiedAt >= 0).length).toBeGreaterThan(1000)
    } finally {
      await pool.dispose()
    }
  })

  test("an empty batch is an empty answer; concurrent batches do not mix", async () => {
    const pool = await startPool()
    try {
      expect(await pool.evaluateBatch([])).toEqual([])
      const one = (n: number) => Array.from({ length: 300 }, () => ({ code: lf(`return ${n}`), trajectory: T5 }))
      const [a, b] = await Promise.all([pool.evaluateBatch(one(1)), pool.evaluateBatch(one(2))])
      expect(a).toEqual(one(1).map(() => okAt(1)))
      expect(b).toEqual(one(2).map(() => okAt(2)))
    } finally {
      await pool.dispose()
    }
  })
})

describe("worker processes", () => {
  test("recycling after N evaluations keeps every answer right", async () => {
    const before = childPids()
    const pool = await startPool({ maxEvaluationsPerProcess: 7 })
    try {
      const ours = [...childPids()].filter((p) => !before.has(p))
      expect(ours.length).toBe(1)
      for (let round = 0; round < 4; round++) {
        const verdicts = await pool.evaluateBatch(
          Array.from({ length: 10 }, (_, i) => ({ code: lf(`return ${i + round}`), trajectory: T5 }))
        )
        expect(verdicts).toEqual(Array.from({ length: 10 }, (_, i) => okAt(i + round)))
      }
      // 40 evaluations, at most 7 per process: the first worker is long gone.
      expect(childPids().has(ours[0]!)).toBe(false)
      expect(await pool.evaluate({ code: NORMAL, trajectory: T5 })).toEqual(okAt(NORMAL_ON_T5))
    } finally {
      await pool.dispose()
    }
  })

  test("a worker killed mid-evaluation: the evaluation is retried on a fresh process", async () => {
    const before = childPids()
    const pool = await startPool({ budget: 1_000_000 })
    try {
      const [worker] = [...childPids()].filter((p) => !before.has(p))
      // Half a second or more of work, then an answer.
      const slow = lf(`let x = 0; for (let i = 0; i < 10000000; i++) x += i % 3; return x > 0 ? 4 : -1`)
      const pending = pool.evaluate({ code: slow, trajectory: T5 })
      await Bun.sleep(150)
      process.kill(worker!, "SIGKILL")
      expect(await pending).toEqual(okAt(4))
      expect(childPids().has(worker!)).toBe(false)
    } finally {
      await pool.dispose()
    }
  })

  test("closing the scope kills the workers and lets Bun exit", async () => {
    const script = join(import.meta.dir, "support", "OneShot.ts")
    const proc = Bun.spawn([process.execPath, script], { stdout: "pipe", stderr: "pipe" })
    const exited = await Promise.race([proc.exited, Bun.sleep(20_000).then(() => "still running")])
    const stdout = await new Response(proc.stdout).text()
    if (exited === "still running") proc.kill()
    expect(exited).toBe(0)
    const report = JSON.parse(stdout) as { verdict: Verdict; workers: ReadonlyArray<number> }
    expect(report.verdict).toEqual(okAt(NORMAL_ON_T5))
    expect(report.workers.length).toBe(1)
    // The worker died with the scope, not merely with its parent.
    for (const pid of report.workers) expect(() => process.kill(pid, 0)).toThrow()
  })
})
