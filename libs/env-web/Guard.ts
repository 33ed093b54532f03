/**
 * Keeps an episode on its app when a link, a form or a script tries to leave it. The
 * confined context (BrowserPool's `confinedProxy`) already fails every request to another
 * origin, but a failed top-level navigation leaves Chromium's error page: no element, no
 * way on, and every later step spent on nothing. Two parts:
 * - in the page, before its own scripts, a click on a link or a submit of a form whose
 *   target lies off the episode's origins is cancelled, so the page and its state stay as
 *   they were; the refused URL is left for the next extraction to report (`refused`);
 * - whatever got through anyway (a script setting `location`, a redirect) is undone after
 *   the fact: back to the previous page, else to the last page the episode observed.
 *
 * @example
 * await guardOffsite(lease.context, origins)
 * await leaveErrorPage(ep, settleMs)
 */
import type { BrowserContext, Page } from "playwright-core"
import { isAllowed } from "./Origins.ts"

/** Runs in the page before its scripts: must not close over anything in this module. */
export const guardInPage = (origins: ReadonlyArray<string>): void => {
  const win: any = globalThis
  if (win.__coreGuard) return
  win.__coreGuard = true
  const doc: any = win.document
  const offsite = (raw: unknown): string | null => {
    try {
      const u = new win.URL(String(raw), doc.baseURI)
      return u.protocol !== "javascript:" && !origins.includes(u.origin) ? u.href : null
    } catch {
      return null
    }
  }
  const refuse = (event: any, url: string) => {
    event.preventDefault()
    event.stopImmediatePropagation()
    win.__coreRefused = url
  }
  // Capture on the window: before any listener of the page's own, which could navigate itself.
  win.addEventListener(
    "click",
    (event: any) => {
      const link = event.target?.closest?.("a[href], area[href]")
      const url = link ? offsite(link.href) : null
      if (url !== null) refuse(event, url)
    },
    true
  )
  win.addEventListener(
    "submit",
    (event: any) => {
      const form = event.target
      const by = event.submitter
      const url = offsite(by?.hasAttribute?.("formaction") ? by.formAction : form?.action)
      if (url !== null) refuse(event, url)
    },
    true
  )
}

/** Every page of the context, from its first script on, refuses to leave `origins`. */
export const guardOffsite = async (context: BrowserContext, origins: ReadonlyArray<string>): Promise<void> => {
  if (origins.length > 0) await context.addInitScript(guardInPage, origins)
}

/** What `leaveErrorPage` needs of an episode: its page, its origins and the last page it observed on them. */
export interface GuardedPage {
  readonly page: Page
  readonly origins: ReadonlyArray<string>
  readonly lastGood: string | null
}

/**
 * A page that stands off the app (Chromium's error page after a blocked navigation) goes
 * back, as a user would press Back; if that does not bring it onto the app, to the last
 * page the episode observed there. True when it moved.
 */
export const leaveErrorPage = async (g: GuardedPage, timeoutMs: number): Promise<boolean> => {
  const page = g.page
  if (g.lastGood === null || isAllowed(page.url(), g.origins)) return false
  await page.goBack({ timeout: timeoutMs, waitUntil: "domcontentloaded" }).catch(() => null)
  if (!isAllowed(page.url(), g.origins))
    await page.goto(g.lastGood, { timeout: timeoutMs, waitUntil: "domcontentloaded" }).catch(() => null)
  return true
}
