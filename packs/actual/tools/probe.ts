/**
 * Prints what a step file can target on a live Actual Budget page: the page's ARIA snapshot
 * (roles and accessible names as Playwright's `getByRole(role, { name })` sees them), the
 * focused element, and CORE's own element list (role + name as the project's step player and
 * policies see them, libs/env-web/Elements.ts), marking elements that have no name.
 *
 * Starts a fresh instance with start.ts, opens `path` (default "/") in Debian's Chromium
 * headless shell, optionally plays the first N steps of a step file to reach a state (edit
 * mode, a search dropdown…), prints, and stops the instance.
 *
 * @example
 * bun packs/actual/tools/probe.ts /budget                  # logged in (auth.steps.json), at /budget
 * bun packs/actual/tools/probe.ts / --no-auth              # the log-in page
 * bun packs/actual/tools/probe.ts /accounts --steps packs/actual/demos/t04-add-pharmacy-transaction.steps.json --upto 2
 */
import { readFileSync } from "node:fs"
import { type StepFile, extractElements, launchBrowser, openLoggedIn, playSteps, startInstance } from "./harness.ts"

const args = process.argv.slice(2)
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const path = args[0] && !args[0].startsWith("--") ? args[0] : "/"
const stepsFile = flag("--steps")
const upto = flag("--upto")

const inst = await startInstance()
const browser = await launchBrowser()
try {
  let page
  if (args.includes("--no-auth")) {
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
    await page.goto(new URL(path, inst.url).href)
    await page.waitForTimeout(3000)
  } else page = (await openLoggedIn(browser, inst, path)).page
  if (stepsFile) {
    const file = JSON.parse(readFileSync(stepsFile, "utf8")) as StepFile
    const steps = file.steps.slice(0, upto ? Number(upto) : undefined)
    await playSteps(page, inst.url, steps, (l) => console.log(l))
  }
  console.log(`# ${page.url()} (ready in ${inst.readyMs.toFixed(0)} ms)`)
  if (args.includes("--aria")) console.log(await page.locator("body").ariaSnapshot())
  console.log("# focused element:")
  console.log(
    await page.evaluate(() => {
      const doc: any = (globalThis as any).document
      const el = doc.activeElement
      if (!el || el === doc.body) return "(body)"
      return `${el.tagName.toLowerCase()} class="${el.getAttribute("class") ?? ""}" placeholder="${el.getAttribute("placeholder") ?? ""}" aria-label="${el.getAttribute("aria-label") ?? ""}"`
    })
  )
  console.log("# CORE's element list (libs/env-web/Elements.ts): what step targets resolve against; visible only")
  const elements = await extractElements(page)
  for (const e of elements) {
    if (!e.visible) continue
    const value = e.value !== null && e.value !== "" ? ` value=${JSON.stringify(e.value.slice(0, 40))}` : ""
    console.log(`${e.role} ${JSON.stringify(e.name)}${e.name === "" ? "   <-- no name" : ""}${value}`)
  }
} finally {
  await browser.close()
  await inst.stop()
}
