/**
 * Plays step files against fresh Actual Budget instances and runs evaluate.ts afterwards
 * (adapted from packs/tiddlywiki/tools/play.ts).
 *
 * Each play: start.ts on a free port, a fresh Chromium context (Debian's headless shell,
 * 1280×800 like BrowserPool) logged in with auth.steps.json, at the task's start URL, the
 * steps resolved the way CORE's player resolves them (harness.ts), then
 * `bun evaluate.ts <instance> <task> <answer>`, as the harness would. `--negative` (implied by
 * `--all`) first checks that the untouched instance fails the task (exit 1) — answer tasks
 * with an empty and with a wrong answer.
 *
 * @example
 * bun packs/actual/tools/play.ts t07-budget-groceries-350            # its demo
 * bun packs/actual/tools/play.ts --all                               # every demo and its negative: a table
 * bun packs/actual/tools/play.ts --all --only t03,t05 -v             # ids starting with t03 or t05, steps logged
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { Browser } from "playwright-core"
import { PACK_DIR } from "../lib.ts"
import { type Instance, type StepFile, type Timing, launchBrowser, openLoggedIn, playSteps, runPack, startInstance } from "./harness.ts"

interface Task {
  readonly id: string
  readonly instruction: string
  readonly start: string
  readonly split: "train" | "held-out"
  readonly tags: ReadonlyArray<string>
  readonly steps?: string
}

const tasks = (JSON.parse(readFileSync(join(PACK_DIR, "tasks.json"), "utf8")) as { tasks: ReadonlyArray<Task> }).tasks
const args = process.argv.slice(2)
const verbose = args.includes("-v")
const timingArg = args.includes("--timing") ? args[args.indexOf("--timing") + 1] : "lenient"
if (!["lenient", "core", "core+tick"].includes(timingArg ?? "")) throw new Error(`--timing lenient | core | core+tick, got ${timingArg}`)
const timing = timingArg as Timing
const log = (line: string) => {
  if (verbose) console.log(line)
}

const newPage = (browser: Browser, inst: Instance, start: string) => openLoggedIn(browser, inst, start, log)

const evaluate = async (inst: Instance, taskId: string, answer: string, env: Record<string, string> = {}) => {
  const t0 = performance.now()
  const r = await runPack(["bun", "evaluate.ts", inst.dir, taskId, answer], env)
  return { code: r.code, line: (r.stdout + r.stderr).trim().split("\n")[0] ?? "", ms: performance.now() - t0 }
}

interface PlayResult {
  readonly code: number
  readonly line: string
  readonly evalMs: number
  readonly warnings: ReadonlyArray<string>
  readonly negatives: ReadonlyArray<{ readonly answer: string; readonly code: number; readonly line: string }>
}

/** One step file on a fresh instance; with `negative`, the untouched instance must fail first. */
const playOne = async (browser: Browser, task: Task, stepsPath: string, negative: boolean): Promise<PlayResult> => {
  const file = JSON.parse(readFileSync(join(PACK_DIR, stepsPath), "utf8")) as StepFile
  const inst = await startInstance()
  try {
    const negatives: Array<{ answer: string; code: number; line: string }> = []
    if (negative) {
      const isAnswer = file.steps.some((s) => s.kind === "answer")
      for (const a of isAnswer ? ["", "no idea"] : [""]) {
        const r = await evaluate(inst, task.id, a, { CORE_ACTUAL_EVAL_WAIT_MS: "0" })
        negatives.push({ answer: a, code: r.code, line: r.line })
      }
    }
    const { context, page } = await newPage(browser, inst, task.start)
    let outcome
    try {
      outcome = await playSteps(page, inst.url, file.steps, log, timing)
    } catch (e) {
      await context.close()
      return { code: -1, line: `play failed: ${(e as Error).message.split("\n")[0]}`, evalMs: 0, warnings: [], negatives: [] }
    }
    const ev = await evaluate(inst, task.id, outcome.answer ?? "")
    await context.close()
    return { code: ev.code, line: ev.line, evalMs: ev.ms, warnings: outcome.warnings, negatives }
  } finally {
    await inst.stop()
  }
}

const browser = await launchBrowser()
let failures = 0
try {
  if (!args.includes("--all")) {
    const positional = args.filter((a, i) => !a.startsWith("-") && args[i - 1] !== "--timing")
    const id = positional[0]
    const task = tasks.find((t) => t.id === id)
    if (!task) throw new Error(`unknown task ${id}; known: ${tasks.map((t) => t.id).join(", ")}`)
    const stepsPath = positional[1] ?? task.steps
    if (!stepsPath) throw new Error(`${task.id} has no demo: give a step file`)
    const r = await playOne(browser, task, stepsPath, args.includes("--negative"))
    console.log(`${task.id} ${stepsPath}: exit ${r.code} (${r.evalMs.toFixed(0)} ms) ${r.line}`)
    for (const w of r.warnings) console.log(`  warning: ${w}`)
    for (const n of r.negatives) console.log(`  negative ${JSON.stringify(n.answer)}: exit ${n.code} ${n.line}`)
    failures += r.code === 0 && r.negatives.every((n) => n.code === 1) ? 0 : 1
  } else {
    const only = args[args.indexOf("--only") + 1]?.split(",")
    // Held-out tasks have no demo here: they are only evaluated.
    const withDemo = tasks.filter((t) => t.steps !== undefined)
    const selected = args.includes("--only") ? withDemo.filter((t) => only!.some((p) => t.id.startsWith(p))) : withDemo
    const rows: Array<string> = [
      "| task | split | demo | eval ms | untouched instance | alt file |",
      "| --- | --- | --- | --- | --- | --- |"
    ]
    for (const task of selected) {
      const r = await playOne(browser, task, task.steps!, true)
      const negOk = r.negatives.every((n) => n.code === 1)
      const altPath = `demos/alt/${task.id}.steps.json`
      let alt = "—"
      let altOk = true
      if (existsSync(join(PACK_DIR, altPath))) {
        const a = await playOne(browser, task, altPath, false)
        altOk = a.code === 0
        alt = `${a.code === 0 ? "pass" : "FAIL"} (exit ${a.code})${a.code === 0 ? "" : ` ${a.line}`}${a.warnings.length ? ` warnings: ${a.warnings.join("; ")}` : ""}`
      }
      const demo = `${r.code === 0 ? "pass" : "FAIL"} (exit ${r.code})${r.code === 0 ? "" : ` ${r.line}`}${r.warnings.length ? ` warnings: ${r.warnings.join("; ")}` : ""}`
      const neg = r.negatives
        .map((n) => `${n.code === 1 ? "fails" : "WRONG"} (exit ${n.code}${n.answer ? `, answer ${JSON.stringify(n.answer)}` : ""})`)
        .join(", ")
      rows.push(`| ${task.id} | ${task.split} | ${demo} | ${r.code === 0 ? r.evalMs.toFixed(0) : "—"} | ${neg} | ${alt} |`)
      console.log(rows[rows.length - 1])
      if (r.code !== 0 || !negOk || !altOk) failures++
    }
    console.log("\n" + rows.join("\n"))
  }
} finally {
  await browser.close()
}
process.exit(failures === 0 ? 0 : 1)
