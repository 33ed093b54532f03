/**
 * Set-of-marks images: the page's screenshot with each listed element boxed and labelled
 * with its id, for a policy that reads pixels.
 *
 * Drawn by the browser itself, over the page: an overlay is added, the viewport is
 * screenshotted, and the overlay is removed. Chosen over drawing on the PNG in this process
 * because the boxes then line up with the page by construction (same CSS pixels, device
 * pixel ratio and viewport as the elements were measured in, on the desktop and in phone
 * emulation alike), the labels are real text in the browser's fonts (a PNG library would
 * need a font rasteriser of its own), no image is decoded or re-encoded here, and the same
 * in-page functions serve Playwright (`evaluate`) and WebDriver (`execute`).
 *
 * What keeps the overlay out of what an observation records, and out of the page's state:
 * - it is added only after the element list, aria snapshot and plain screenshot were read;
 * - it is one element under `<html>` (outside `<body>`, where apps render), fixed to the
 *   viewport with `pointer-events: none` (no layout, scroll, focus or hit-testing change),
 *   its content in a closed shadow root (the page's CSS and queries do not reach it) and
 *   hidden from accessibility;
 * - it is removed in a `finally`, whatever the screenshot did; a removal that could not run
 *   is retried before the next read (`clearMarksInPage` also runs first in `drawMarksInPage`);
 * - a removal that finds no overlay means the document was replaced meanwhile: the image may
 *   show another page, so it is not used.
 * A page's own MutationObserver does see the overlay come and go (two mutations of `<html>`).
 *
 * @example
 * const png = await markedScreenshot(page, marksOf(elements, 150), 5000) // null: the page changed under it
 */
import type { Page } from "playwright-core"
import type { Mark } from "@core/environment"
import type { ScreenshotMask } from "./Scrub.ts"

/** The overlay's tag: a custom element name no page is expected to use. */
export const MARKS_TAG = "core-set-of-marks"

/** Runs in the page: removes every overlay; true when there was one. Must not close over anything in this module. */
export const clearMarksInPage = (): boolean => {
  const doc: any = (globalThis as any).document
  const hosts = Array.from(doc.querySelectorAll("core-set-of-marks") as ArrayLike<any>)
  for (const host of hosts) host.remove()
  return hosts.length > 0
}

/**
 * Runs in the page: draws `marks` (viewport CSS pixels) as an overlay: a 2 px box per element
 * and its id on a filled tag above the box's top-left corner (inside it when there is no
 * room above). Colours cycle so neighbouring boxes differ. Must not close over anything in
 * this module.
 */
export const drawMarksInPage = (marks: ReadonlyArray<Mark>): boolean => {
  const doc: any = (globalThis as any).document
  for (const old of Array.from(doc.querySelectorAll("core-set-of-marks") as ArrayLike<any>)) old.remove()
  const colours = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#008080", "#9a6324", "#800000", "#000075", "#c71585"]
  const host = doc.createElement("core-set-of-marks")
  host.setAttribute("aria-hidden", "true")
  // Inline and !important: the page's own rules, even `* { … !important }`, cannot move or hide it.
  host.style.cssText = [
    "all: initial",
    "display: block",
    "position: fixed",
    "left: 0",
    "top: 0",
    "width: 100vw",
    "height: 100vh",
    "margin: 0",
    "padding: 0",
    "border: 0",
    "overflow: hidden",
    "pointer-events: none",
    "z-index: 2147483647",
    "contain: strict"
  ]
    .map((d) => `${d} !important`)
    .join(";")
  const root = host.attachShadow({ mode: "closed" })
  const style = doc.createElement("style")
  style.textContent =
    ".b{position:absolute;box-sizing:border-box;border:2px solid;margin:0;padding:0}" +
    ".l{position:absolute;box-sizing:border-box;margin:0;padding:0 3px;color:#fff;white-space:nowrap;" +
    "font:bold 11px/14px ui-monospace,monospace;letter-spacing:0}"
  root.appendChild(style)
  marks.forEach((m, i) => {
    const colour = colours[i % colours.length]
    const box = doc.createElement("div")
    box.className = "b"
    box.style.cssText = `left:${m.x}px;top:${m.y}px;width:${m.width}px;height:${m.height}px;border-color:${colour}`
    const label = doc.createElement("div")
    label.className = "l"
    label.textContent = m.id
    const top = m.y >= 14 ? m.y - 14 : m.y
    label.style.cssText = `left:${Math.max(0, m.x)}px;top:${Math.max(0, top)}px;background:${colour}`
    root.appendChild(box)
    root.appendChild(label)
  })
  doc.documentElement.appendChild(host)
  return true
}

/**
 * The page's viewport with `marks` drawn, as PNG bytes; null when the document was replaced
 * while the overlay was up (the picture may be of another page). Throws what the page or
 * browser threw; the overlay is gone either way, or `removed` says it could not be removed.
 * `mask` paints over what the plain screenshot painted over (Scrub.ts's `screenshotMask`).
 */
export const markedScreenshot = async (
  page: Page,
  marks: ReadonlyArray<Mark>,
  timeoutMs: number,
  removed: (ok: boolean) => void = () => undefined,
  mask: ScreenshotMask = {}
): Promise<Uint8Array | null> => {
  await page.evaluate(drawMarksInPage, marks)
  let png: Buffer
  let cleared = false
  try {
    png = await page.screenshot({ type: "png", timeout: timeoutMs, ...mask })
  } finally {
    let ran = true
    cleared = await page.evaluate(clearMarksInPage).catch(() => {
      ran = false
      return false
    })
    removed(ran)
  }
  return cleared ? new Uint8Array(png) : null
}
