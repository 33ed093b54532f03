/**
 * Plays step files against fresh MediaWiki instances and runs evaluate.ts afterwards.
 *
 * Each play: start.ts on a free port, a fresh Chromium context (Debian's headless shell,
 * 1280×800 like BrowserPool) logged in as the pack's user (as auth.steps.json does), at the
 * task's start URL, the steps resolved the way CORE's player resolves them (harness.ts), then
 * `bun evaluate.ts <instance> <task> <answer>` at once, as the harness would. `--all` also checks the negative: after `reset.ts` and a fresh page
 * at the start URL with no steps, evaluate must fail (exit 1) — for answer tasks with an
 * empty and with a wrong answer.
 *
 * @example
 * bun packs/mediawiki/tools/play.ts t05-append-workshop-log              # its demo
 * bun packs/mediawiki/tools/play.ts t05-append-workshop-log demos/alt/t05-append-workshop-log.steps.json
 * bun packs/mediawiki/tools/play.ts --all                                # every demo, negative and alt file: a table
 * bun packs/mediawiki/tools/play.ts --all --only t04,t07 -v              # ids starting with t03 or t05, steps logged
 * bun packs/mediawiki/tools/play.ts --all --timing core+tick             # read the page like CORE's environment (harness.ts Timing)
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { Browser } from "playwright-core"
import { PACK_DIR } from "../lib.ts"
import { type Instance, type StepFile, type Timing, launchBrowser, logIn, playSteps, waitQuiet, runPack, startInstance } from "./harness.ts"

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

const newPage = async (browser: Browser, inst: Instance, start: string) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  const page = await context.newPage()
  await logIn(page, inst.url)
  await page.goto(new URL(start, inst.url).href, { waitUntil: "load" })
  await waitQuiet(page)
  return { context, page }
}

const evaluate = async (inst: Instance, taskId: string, answer: string) => {
  const t0 = performance.now()
  const r = await runPack(["bun", "evaluate.ts", inst.dir, taskId, answer])
  return { code: r.code, line: (r.stdout + r.stderr).trim().split("\n")[0] ?? "", ms: performance.now() - t0 }
}

interface PlayResult {
  readonly code: number
  readonly line: string
  readonly evalMs: number
  readonly warnings: ReadonlyArray<string>
  readonly negatives: ReadonlyArray<{ readonly answer: string; readonly code: number; readonly line: string }>
}

/** One step file on a fresh instance; with `negative`, then the reset start page must fail. */
const playOne = async (browser: Browser, task: Task, stepsPath: string, negative: boolean): Promise<PlayResult> => {
  const file = JSON.parse(readFileSync(join(PACK_DIR, stepsPath), "utf8")) as StepFile
  const inst = await startInstance()
  try {
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
    const negatives: Array<{ answer: string; code: number; line: string }> = []
    if (negative) {
      const reset = await runPack(["bun", "reset.ts", inst.dir])
      if (reset.code !== 0) negatives.push({ answer: "(reset)", code: reset.code, line: reset.stderr.trim() })
      const fresh = await newPage(browser, inst, task.start)
      await fresh.page.waitForTimeout(500)
      const answers = outcome.answer === undefined ? [""] : ["", "no idea"]
      for (const a of answers) {
        const r = await evaluate(inst, task.id, a)
        negatives.push({ answer: a, code: r.code, line: r.line })
      }
      await fresh.context.close()
    }
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
    if (!stepsPath) throw new Error(`${task.id} has no step file: name one`)
    const r = await playOne(browser, task, stepsPath, args.includes("--negative"))
    console.log(`${task.id} ${stepsPath}: exit ${r.code} (${r.evalMs.toFixed(0)} ms) ${r.line}`)
    for (const w of r.warnings) console.log(`  warning: ${w}`)
    for (const n of r.negatives) console.log(`  negative ${JSON.stringify(n.answer)}: exit ${n.code} ${n.line}`)
    failures += r.code === 0 && r.negatives.every((n) => n.code === 1) ? 0 : 1
  } else {
    const only = args[args.indexOf("--only") + 1]?.split(",")
    const selected = args.includes("--only") ? tasks.filter((t) => only!.some((p) => t.id.startsWith(p))) : tasks
    const rows: Array<string> = ["| task | split | demo | eval ms | start page only | alt file |", "| --- | --- | --- | --- | --- | --- |"]
    for (const task of selected) {
      if (!task.steps) {
        rows.push(`| ${task.id} | ${task.split} | (no step file) | — | — | — |`)
        continue
      }
      const r = await playOne(browser, task, task.steps, true)
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
