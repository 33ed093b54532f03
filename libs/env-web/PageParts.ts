/**
 * An extracted page as one screen read of the episode runner, for both browsers that
 * extract pages with `extractInPage` (Playwright on the desktop, WebDriver on mobile web):
 * the ids it issued become the episode's, so an action can only name an element the policy
 * was shown.
 */
import type { ScreenRead } from "@core/environment"
import type { Extracted } from "./Elements.ts"

/** What a browser read of the page: its address, title, elements and screenshot. */
export interface ExtractedPage {
  readonly url: string
  readonly title: string
  readonly extracted: Extracted
  readonly png: Uint8Array | null
}

/** The ids an episode has issued, and the next one to issue. */
export interface IssuedIds {
  nextId: number
  readonly issued: Set<string>
}

export const pageRead = (
  ep: IssuedIds,
  read: ExtractedPage,
  parts: { readonly elementsBytes: Uint8Array; readonly aria: string; readonly error: string | null }
): ScreenRead => {
  ep.nextId = read.extracted.nextId
  for (const e of read.extracted.elements) ep.issued.add(e.id)
  return {
    url: read.url,
    app: null,
    title: read.title,
    elements: read.extracted.elements,
    elementsBytes: parts.elementsBytes,
    aria: parts.aria,
    screenshot: read.png,
    error: parts.error
  }
}
