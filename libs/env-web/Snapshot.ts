/**
 * The part of an observation read after the elements are extracted — aria snapshot (secrets
 * masked), title, screenshot, URL — and the elements blob's bytes. Shared by the environment
 * and the recorder so a recorded demo and a rollout store the very same blobs for a page.
 */
import type { Page } from "playwright-core"
import { maskSecrets } from "./Elements.ts"
import type { Extracted } from "./Elements.ts"
import { screenshotMask, scrubExtracted, scrubText } from "./Scrub.ts"

export interface Snapshot {
  /** The elements, with the episode's secrets masked (Scrub.ts). */
  readonly extracted: Extracted
  /** Ids of the elements that showed a secret: a later screenshot of the same page masks them too. */
  readonly masked: ReadonlyArray<string>
  readonly aria: string
  readonly title: string
  readonly png: Uint8Array | null
  readonly url: string
}

/**
 * Independent reads of the same settled page: their round trips overlap. `secrets` are the
 * values typed by reference so far (Scrub.ts): masked in every text, painted over in the screenshot.
 */
export const snapshot = async (
  page: Page,
  raw: Extracted,
  timeoutMs: number,
  withScreenshot: boolean,
  secrets: ReadonlySet<string> = new Set()
): Promise<Snapshot> => {
  const { extracted, masked } = scrubExtracted(raw, secrets)
  const [aria, title, png] = await Promise.all([
    page.ariaSnapshot({ timeout: timeoutMs }),
    page.title(),
    withScreenshot ? page.screenshot({ type: "png", timeout: timeoutMs, ...screenshotMask(page, masked, secrets) }) : null
  ])
  return {
    extracted,
    masked,
    aria: scrubText(maskSecrets(aria, raw.secrets), secrets),
    title: scrubText(title, secrets),
    png: png === null ? null : new Uint8Array(png),
    url: scrubText(page.url(), secrets)
  }
}

const encoder = new TextEncoder()

/** The elements blob: `{ url, viewport, scroll, elements }` as JSON. */
export const elementsBlob = (url: string, e: Extracted): Uint8Array =>
  encoder.encode(JSON.stringify({ url, viewport: e.viewport, scroll: e.scroll, elements: e.elements }))

/**
 * Written in an observation's blobs where the app's own origin was. Each instance of an app
 * has its own port: with the origin in place, the same page on two instances would store
 * different blobs, and a policy or a label function would read a port. Observation URLs are
 * left whole: what a decision reads of them is their path.
 */
export const BASE_PLACEHOLDER = "{base}"

const swap =
  (base: string) =>
  (s: string): string =>
    s.includes(base) ? s.split(base).join(BASE_PLACEHOLDER) : s

/** A read page with `base` (the app's origin, e.g. `http://127.0.0.1:41234`) replaced by the placeholder in its elements, aria and title. */
export const placeBase = <R extends { readonly extracted: Extracted; readonly aria: string; readonly title: string }>(
  base: string | null,
  read: R
): R => {
  if (base === null) return read
  const f = swap(base)
  const elements = read.extracted.elements.map((e) => ({
    ...e,
    name: f(e.name),
    text: f(e.text),
    value: e.value === null ? null : f(e.value)
  }))
  return { ...read, extracted: { ...read.extracted, elements }, aria: f(read.aria), title: f(read.title) }
}

/** The elements blob with the app's origin as the placeholder in its `url` too. */
export const placedElementsBlob = (base: string | null, url: string, e: Extracted): Uint8Array =>
  elementsBlob(base === null ? url : swap(base)(url), e)
