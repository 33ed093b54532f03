/**
 * What probe.ts and play.ts share (adapted from packs/tiddlywiki/tools/harness.ts): start/stop an instance the way the harness
 * does (argv from core-app.json, cwd = pack folder, minimal env), launch Debian's Chromium
 * headless shell through playwright-core, and play a step file on a page.
 *
 * @example
 * const inst = await startInstance()
 * const browser = await launchBrowser()
 * const page = await (await browser.newContext()).newPage()
 * await page.goto(inst.url)
 * const outcome = await playSteps(page, inst.url, steps)
 * await inst.stop()
 */
import { chromium } from "playwright-core"
import type { Browser, Locator, Page } from "playwright-core"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { PACK_DIR } from "../lib.ts"
// CORE's own element extraction and target resolution, so step files are checked the way
// the project's player resolves them (file imports, not package indexes: small and stable).
import { resolveTarget as resolveDescribed, describeTarget } from "../../../libs/domain/TargetResolution.ts"
import { extractInPage, interactableSelector } from "../../../libs/env-web/Elements.ts"
import { focusForInsert } from "../../../libs/env-web/Actions.ts"
import type { ElementInfo } from "../../../libs/environment/Environment.ts"
// Launched as CORE launches it: Debian's headless shell with the same flags.
import { chromiumFlags, headlessChromium } from "../../../libs/env-web/BrowserPool.ts"

export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({
    executablePath: headlessChromium(),
    args: [...chromiumFlags],
    headless: true
  })

/** The minimal environment the harness gives pack commands. */
export const packEnv = (tag = "tools"): Record<string, string> => {
  const env: Record<string, string> = { CORE_APP_INSTANCE_TAG: tag }
  for (const k of ["PATH", "HOME", "LANG", "TMPDIR"]) {
    const v = process.env[k]
    if (v !== undefined) env[k] = v
  }
  return env
}

export const freePort = (): number => {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: () => undefined } })
  const port = server.port
  server.stop(true)
  return port
}

export interface Instance {
  readonly url: string
  readonly dir: string
  readonly port: number
  /** ms from spawning start.ts to the URL/INSTANCE lines (printed after the first 200). */
  readonly readyMs: number
  stop(): Promise<void>
}

/** Runs a pack command (argv, cwd = pack folder, minimal env); resolves to exit code, stdout, stderr. */
export const runPack = async (
  argv: ReadonlyArray<string>,
  extraEnv: Record<string, string> = {}
): Promise<{ code: number; stdout: string; stderr: string }> => {
  const proc = Bun.spawn([...argv], { cwd: PACK_DIR, env: { ...packEnv(), ...extraEnv }, stdout: "pipe", stderr: "pipe", stdin: "ignore" })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr }
}

export const startInstance = async (): Promise<Instance> => {
  const port = freePort()
  const t0 = performance.now()
  const proc = Bun.spawn(["bun", "start.ts", String(port)], {
    cwd: PACK_DIR,
    env: packEnv(),
    stdout: "pipe",
    stderr: "inherit",
    stdin: "ignore"
  })
  const reader = proc.stdout.getReader()
  let buf = ""
  let url: string | undefined
  let dir: string | undefined
  const timeout = setTimeout(() => proc.kill("SIGKILL"), 30_000)
  while (!(url && dir)) {
    const { value, done } = await reader.read()
    if (done) break
    buf += new TextDecoder().decode(value)
    url = /^URL=(.*)$/m.exec(buf)?.[1]
    dir = /^INSTANCE=(.*)$/m.exec(buf)?.[1]
  }
  clearTimeout(timeout)
  const readyMs = performance.now() - t0
  reader.releaseLock()
  if (!url || !dir) throw new Error(`start.ts did not print URL= and INSTANCE= (got ${JSON.stringify(buf)})`)
  const instanceDir = dir
  return {
    url,
    dir: instanceDir,
    port,
    readyMs,
    stop: async () => {
      await runPack(["bun", "stop.ts", instanceDir])
      proc.kill("SIGKILL")
      await proc.exited
    }
  }
}

// ---------------------------------------------------------------------------------------
// Step files

// The step file format is CORE's own (libs/demos/StepFile.ts): this tool plays the same files.
import type { Step, StepFileV1 as StepFile, StepTarget as Target } from "../../../libs/demos/StepFile.ts"
export type { Step, StepFile, Target }

/** CORE's element list of the page (libs/env-web/Elements.ts, the extraction rollouts observe). */
export const extractElements = async (page: Page): Promise<ReadonlyArray<ElementInfo>> => {
  // Runs in the page (lib ES2023 has no DOM types, as in libs/env-web/Elements.ts).
  const next = await page.evaluate(() => {
    const doc: any = (globalThis as any).document
    let max = 0
    for (const el of Array.from(doc.querySelectorAll("[data-core-id]") as ArrayLike<any>))
      max = Math.max(max, Number(String(el.getAttribute("data-core-id")).slice(1)))
    return max + 1
  })
  return (await page.evaluate(extractInPage, { selector: interactableSelector, nextId: next })).elements
}

export interface Resolved {
  readonly locator: Locator
  /** How CORE's resolver matched (exact, or a unique "contains"). */
  readonly match: "exact" | "contains"
  /**
   * Whether Playwright's `getByRole(role, { name, exact: false })`, first visible match,
   * lands on the same element (undefined when the target has no role).
   */
  readonly playwrightAgrees: boolean | undefined
}

/**
 * The element a target names, resolved the way CORE's step player does (`resolveTarget` of
 * libs/domain/TargetResolution.ts on the Elements.ts extraction: role exact, name/text equal
 * after collapsing white space and case, else a unique "contains" match; `nth` among exact
 * matches, visible first), retried until `timeoutMs`. Cross-checked with Playwright's
 * `getByRole(role, { name, exact: false })` first visible match.
 */
export const resolveTarget = async (page: Page, target: Target, timeoutMs = 5000): Promise<Resolved> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const elements = await extractElements(page)
    const r = resolveDescribed(target, elements)
    if ("element" in r) {
      const locator = page.locator(`[data-core-id="${r.element.id}"]`).first()
      let playwrightAgrees: boolean | undefined
      if (target.role && target.name !== null) {
        const byRole = page.getByRole(
          target.role as Parameters<Page["getByRole"]>[0],
          target.name !== undefined ? { name: target.name, exact: false } : {}
        )
        const ids = await byRole.evaluateAll((els) =>
          els.filter((e: any) => e.checkVisibility()).map((e: any) => e.getAttribute("data-core-id") as string | null)
        )
        playwrightAgrees = ids[target.nth ?? 0] === r.element.id
      }
      return { locator, match: r.match, playwrightAgrees }
    }
    if (Date.now() > deadline) throw new Error(`${describeTarget(target)}: ${r.problem}`)
    await page.waitForTimeout(100)
  }
}

export interface PlayOutcome {
  readonly answer?: string
  readonly status?: string
  /** Targets that CORE's resolver matched only by "contains", or where Playwright's getByRole disagrees. */
  readonly warnings: ReadonlyArray<string>
}

/**
 * How the page is read between steps:
 * - "lenient" (default): 150 ms after every step, and a target is retried for up to 5 s;
 * - "core": as CORE's WebEnvironment does today: the page is read once, right after the action
 *   (its settle waits for the network only), and the target must be on that reading;
 * - "core+tick": "core" plus one macrotask (`setTimeout(0)` in the page) before reading.
 *   kept from the tiddlywiki pack's harness, for comparing how a page is read.
 */
export type Timing = "lenient" | "core" | "core+tick"

/**
 * Plays `steps` on `page` (already at the task's start URL) with the semantics of CORE's
 * web actions (libs/env-web/Actions.ts): `type` fills by default; `mode: "insert"` keeps the
 * caret of a focused field (the `key` steps before put it there), else focuses the field
 * with the caret at the end, then inserts the text as an IME would; `key` presses on the page.
 */
export const playSteps = async (
  page: Page,
  baseUrl: string,
  steps: ReadonlyArray<Step>,
  log: (line: string) => void = () => undefined,
  timing: Timing = "lenient"
): Promise<PlayOutcome> => {
  const warnings: Array<string> = []
  const resolve = async (target: Target): Promise<Locator> => {
    const r = await resolveTarget(page, target, timing === "lenient" ? 5000 : 0)
    if (r.match !== "exact") warnings.push(`${describeTarget(target)}: matched by "contains" only`)
    if (r.playwrightAgrees === false) warnings.push(`${describeTarget(target)}: Playwright getByRole picks another element`)
    return r.locator
  }
  let answer: string | undefined
  let status: string | undefined
  for (const [i, step] of steps.entries()) {
    log(`  step ${i + 1}: ${JSON.stringify(step)}`)
    switch (step.kind) {
      case "click":
        await (await resolve(step.target)).click({ timeout: 5000 })
        break
      case "type": {
        if (step.text === undefined)
          throw new Error("this tool types no secrets: play a step with secretEnv through bun core record --from")
        const locator = await resolve(step.target)
        if (step.mode === "insert") {
          const ready = await locator.evaluate(focusForInsert)
          if (ready === "end-key") await page.keyboard.press("End")
          else if (ready !== null) throw new Error(ready)
          await page.keyboard.insertText(step.text)
        } else {
          await locator.fill(step.text, { timeout: 5000 })
        }
        if (step.submit) await locator.press("Enter", { timeout: 5000 })
        break
      }
      case "key":
        await page.keyboard.press(step.key)
        break
      case "navigate":
        await page.goto(new URL(step.url, baseUrl).href, { waitUntil: "domcontentloaded" })
        break
      case "wait":
        await page.waitForTimeout(step.ms)
        break
      case "answer":
        answer = step.text
        break
      case "status":
        status = step.status
        break
      default:
        throw new Error(`this tool does not play '${step.kind}' steps: use bun core record --from`)
    }
    if (timing === "lenient") await page.waitForTimeout(150)
    else if (timing === "core+tick") await page.evaluate(() => new Promise((r) => setTimeout(r, 0)))
  }
  return { answer, status, warnings }
}

/**
 * Opens the instance in a fresh context logged in and in the budget, as CORE does before an
 * episode: the base URL, auth.steps.json played, then `start`; resolves once the budget's
 * sidebar shows.
 */
export const openLoggedIn = async (browser: Browser, inst: Instance, start: string, log: (line: string) => void = () => undefined) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  const page = await context.newPage()
  await page.goto(inst.url, { waitUntil: "domcontentloaded" })
  const auth = JSON.parse(readFileSync(join(PACK_DIR, "auth.steps.json"), "utf8")) as StepFile
  await playSteps(page, inst.url, auth.steps, log)
  await page.getByRole("link", { name: "All accounts", exact: false }).waitFor({ timeout: 15_000 })
  await page.goto(new URL(start, inst.url).href, { waitUntil: "domcontentloaded" })
  await page.getByRole("link", { name: "All accounts", exact: false }).waitFor({ timeout: 15_000 })
  return { context, page }
}
