/**
 * The checker tests' shared shape: a scripted HTTP run of a task on a real server, and for
 * every template of a suite the three verdicts that make a checker trustworthy — its
 * scripted solution passes, the same run stopped one step early fails, a wrong-value run
 * fails. Each site's test file supplies the scripts and its own extra cases.
 */
import { describe, expect, test } from "bun:test"
import { check } from "../eval/checkers/mod.ts"
import type { Verdict } from "../eval/checkers/types.ts"
import type { Suite, SuiteTask } from "../suites/Suite.ts"
import { startEpisode } from "./client.ts"
import type { Browser, withServer } from "./client.ts"

export type Params = Readonly<Record<string, string | number>>
export interface Outcome {
  finalUrl: string | null
  answer: string | null
  status: "complete" | "infeasible" | null
}
export type Step = (b: Browser, out: Outcome) => Promise<void>

export const go =
  (path: string): Step =>
  async (b, out) => {
    out.finalUrl = (await b.get(path)).path
  }
export const post =
  (path: string, form: Record<string, string>): Step =>
  async (b, out) => {
    out.finalUrl = (await b.post(path, form)).path
  }
export const finish =
  (status: Outcome["status"], answer: string | null = null): Step =>
  async (_b, out) => {
    out.status = status
    out.answer = answer
  }

export interface Script<Base> {
  readonly solve: (p: Params, base: Base) => Array<Step>
  /** Wrong parameters to solve with (checked against the right ones), or a whole wrong run. */
  readonly wrong: ((p: Params, base: Base) => Params) | { run: (p: Params, base: Base) => Array<Step> }
}

/** Runs `steps` in a fresh episode of `site` for `task` and asks the task's checker. */
export const runner =
  (env: ReturnType<typeof withServer>, site: string) =>
  async (task: SuiteTask, steps: ReadonlyArray<Step>): Promise<Verdict> => {
    const s = env.server()
    const { tenant, browser, first } = await startEpisode(s, site, task.siteSeed)
    const out: Outcome = { finalUrl: first.path, answer: null, status: null }
    for (const step of steps) await step(browser, out)
    return check(task.checker, { api: s, tenant, parameters: task.parameters, ...out })
  }

export const describeCheckers = <Base>(
  site: string,
  suite: Suite,
  scripts: Record<string, Script<Base>>,
  baseOf: (seed: number) => Base,
  run: (task: SuiteTask, steps: ReadonlyArray<Step>) => Promise<Verdict>
): void => {
  test("every template has a script", () => {
    expect(Object.keys(scripts).sort()).toEqual(suite.templates.map((t) => t.id).sort())
  })
  for (const template of suite.templates) {
    // One instance per template, alternating so both train and held-out instances get exercised.
    const task = suite.tasks.filter((t) => t.templateId === template.id)[suite.templates.indexOf(template) % 3]!
    const script = scripts[template.id]!
    describe(`${site}: ${template.id} (${task.id})`, () => {
      const base = baseOf(task.siteSeed)
      test("scripted solution passes", async () => {
        const v = await run(task, script.solve(task.parameters, base))
        expect(v.reason).toBeString()
        expect(v).toMatchObject({ success: true })
      })
      test("stopped one step early fails", async () => {
        const v = await run(task, script.solve(task.parameters, base).slice(0, -1))
        expect(v.success).toBe(false)
        expect(v.reason.length).toBeGreaterThan(0)
      })
      test("wrong value fails", async () => {
        const steps =
          typeof script.wrong === "function"
            ? script.solve(script.wrong(task.parameters, base), base)
            : script.wrong.run(task.parameters, base)
        const v = await run(task, steps)
        expect(v.success).toBe(false)
      })
    })
  }
}
