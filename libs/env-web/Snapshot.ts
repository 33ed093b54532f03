/**
 * The part of an observation read after the elements are extracted — aria snapshot (secrets
 * masked), title, screenshot, URL — and the elements blob's bytes. Shared by the environment
 * and the recorder so a recorded demo and a rollout store the very same blobs for a page.
 */
import type { Page } from "playwright-core"
import { maskSecrets } from "./Elements.ts"
import type { Extracted } from "./Elements.ts"

export interface Snapshot {
  readonly aria: string
  readonly title: string
  readonly png: Uint8Array | null
  readonly url: string
}

/** Independent reads of the same settled page: their round trips overlap. */
export const snapshot = async (page: Page, extracted: Extracted, timeoutMs: number, withScreenshot: boolean): Promise<Snapshot> => {
  const [aria, title, png] = await Promise.all([
    page.ariaSnapshot({ timeout: timeoutMs }),
    page.title(),
    withScreenshot ? page.screenshot({ type: "png", timeout: timeoutMs }) : null
  ])
  return { aria: maskSecrets(aria, extracted.secrets), title, png: png === null ? null : new Uint8Array(png), url: page.url() }
}

const encoder = new TextEncoder()

/** The elements blob: `{ url, viewport, scroll, elements }` as JSON. */
export const elementsBlob = (url: string, e: Extracted): Uint8Array =>
  encoder.encode(JSON.stringify({ url, viewport: e.viewport, scroll: e.scroll, elements: e.elements }))
