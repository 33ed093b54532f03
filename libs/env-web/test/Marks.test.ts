/**
 * The set-of-marks overlay on a real page: drawn, pictured and taken away without leaving a
 * trace in the document — also when the screenshot fails — and an image of a document that
 * was replaced meanwhile is not used.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { marksOf } from "@core/environment"
import type { Mark } from "@core/environment"
import { BrowserPool } from "../BrowserPool.ts"
import { extractInPage, interactableSelector } from "../Elements.ts"
import { markedScreenshot, MARKS_TAG } from "../Marks.ts"
import { startRuntime, startSite } from "./fixtures.ts"

const site = startSite()
const rt = startRuntime()
afterAll(async () => {
  await rt.dispose()
  site.stop()
})

/** Everything of the page a later observation could read: its markup, focus, scroll and overlays left. */
const pageState = (page: Page) =>
  page.evaluate((tag) => {
    const doc = (globalThis as any).document
    return {
      html: doc.documentElement.outerHTML,
      focus: doc.activeElement?.id ?? null,
      scroll: [(globalThis as any).scrollX, (globalThis as any).scrollY],
      overlays: doc.querySelectorAll(tag).length
    }
  }, MARKS_TAG)

/** A page of the fixture site on a fresh context, with its elements' marks; released afterwards. */
const onPage = <A>(path: string, f: (page: Page, marks: ReadonlyArray<Mark>) => Promise<A>): Promise<A> =>
  rt.runtime.runPromise(
    Effect.gen(function* () {
      const lease = yield* (yield* BrowserPool).acquire()
      return yield* Effect.promise(async () => {
        await lease.page.goto(site.url(path))
        await lease.page.focus("#q")
        const extracted = await lease.page.evaluate(extractInPage, { selector: interactableSelector, nextId: 1 })
        return f(lease.page, marksOf(extracted.elements))
      }).pipe(Effect.ensuring(lease.release))
    })
  )

test("the overlay is pictured and then gone: the document, focus and scroll are as before", async () => {
  await onPage("/form", async (page, marks) => {
    expect(marks.length).toBeGreaterThan(5)
    const plain = new Uint8Array(await page.screenshot({ type: "png" }))
    // After the plain screenshot, as an observation takes them: Playwright's own caret hiding leaves `style=""` on fields.
    const before = await pageState(page)
    const marked = await markedScreenshot(page, marks, 5000)
    expect(marked).not.toBeNull()
    expect(Buffer.from(marked!).equals(Buffer.from(plain))).toBe(false)
    expect(await pageState(page)).toEqual(before)
    expect(before.overlays).toBe(0)
    // The page pictured again is the plain one: nothing of the overlay is left to see.
    expect(Buffer.from(await page.screenshot({ type: "png" })).equals(Buffer.from(plain))).toBe(true)
  })
})

test("a screenshot that fails still takes the overlay away", async () => {
  await onPage("/form", async (page, marks) => {
    await page.screenshot({ type: "png" })
    const before = await pageState(page)
    // The real page, its screenshot failing as a timeout would.
    const failing = Object.create(page, {
      screenshot: {
        value: async () => {
          expect((await pageState(page)).overlays).toBe(1)
          throw new Error("screenshot timed out")
        }
      }
    }) as Page
    const removals: Array<boolean> = []
    const failure = await markedScreenshot(failing, marks, 5000, (ran) => void removals.push(ran)).catch((e: Error) => e)
    expect(failure instanceof Error && failure.message).toBe("screenshot timed out")
    expect(removals).toEqual([true])
    expect(await pageState(page)).toEqual(before)
  })
})

test("a document replaced while the overlay was up gives no image", async () => {
  await onPage("/form", async (page, marks) => {
    const navigating = Object.create(page, {
      screenshot: {
        value: async (options: Parameters<Page["screenshot"]>[0]) => {
          await page.goto(site.url("/next"))
          return page.screenshot(options)
        }
      }
    }) as Page
    expect(await markedScreenshot(navigating, marks, 5000)).toBeNull()
    expect((await pageState(page)).overlays).toBe(0)
  })
})
