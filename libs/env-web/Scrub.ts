/**
 * Secrets out of what an observation records. A value the environment typed by reference
 * (a `type` with `secretEnv`, in an episode, a demo's replay or a log-in; a person's password
 * in a recording) is the episode's secret from then on: wherever the page shows it — the field
 * it was typed into, whatever that field's type, an element's name or text, the aria
 * snapshot, the title, the URL — it is masked before anything is stored, and in screenshots
 * the boxes of the elements showing it are painted over (Playwright's `mask`). Scrubbing
 * happens at capture, so no event or blob ever holds the value and a replay reads what the
 * run recorded.
 *
 * Masked one `•` per character (`hideSecrets` of @core/events), as a password field's value
 * already is: a secret reads the same wherever it was typed, and its length is no more than
 * the password field shows on screen.
 *
 * @example
 * const { extracted, masked } = scrubExtracted(raw, secrets)
 * await page.screenshot({ ...screenshotMask(page, masked, secrets) })
 */
import type { Locator, Page } from "playwright-core"
import type { ElementInfo } from "@core/environment"
import { dots, hideSecrets } from "@core/events"
import type { Extracted } from "./Elements.ts"

/** What Playwright paints over a masked box (its own default, named so a test can look for it). */
export const SECRET_MASK_COLOR = "#FF00FF"

/**
 * A secret as a read may hold it: as typed, escaped inside a quoted string (the aria snapshot
 * quotes a text with `"` or `:` in it), and URL-encoded (a form sent by GET, a search).
 */
const forms = (secrets: Iterable<string>): ReadonlyArray<string> => {
  const all = new Set<string>()
  for (const secret of secrets) {
    if (secret.trim() === "") continue
    all.add(secret)
    all.add(JSON.stringify(secret).slice(1, -1))
    all.add(encodeURIComponent(secret))
    all.add(new URLSearchParams({ s: secret }).toString().slice(2))
  }
  return [...all]
}

/** `text` with every form of every secret masked. */
export const scrubText = (text: string, secrets: Iterable<string>): string => hideSecrets(text, forms(secrets))

/** The lengths extraction cuts a text to (Elements.ts): names and texts, a field's value, a textarea's. */
const caps = [200, 500, 10_000]

/** A text cut mid-secret still shows the secret's start: mask what of it the cut left. */
const scrubCut = (text: string, secrets: ReadonlyArray<string>): string => {
  if (!caps.includes(text.length)) return text
  for (const secret of secrets) {
    for (let k = secret.length - 1; k > 0; k--) {
      if (text.endsWith(secret.slice(0, k))) return text.slice(0, text.length - k) + dots(secret.slice(0, k))
    }
  }
  return text
}

const scrubField = (text: string, secrets: ReadonlyArray<string>): string => scrubCut(scrubText(text, secrets), secrets)

/**
 * The extracted page with the secrets masked in every element's name, text and value, and the
 * ids of the elements that showed one: their boxes are what a screenshot masks.
 */
export const scrubExtracted = (
  extracted: Extracted,
  secrets: Iterable<string>
): { readonly extracted: Extracted; readonly masked: ReadonlyArray<string> } => {
  const values = [...secrets].filter((s) => s.trim() !== "")
  if (values.length === 0) return { extracted, masked: [] }
  const masked: Array<string> = []
  const elements = extracted.elements.map((e): ElementInfo => {
    const name = scrubField(e.name, values)
    const text = scrubField(e.text, values)
    const value = e.value === null ? null : scrubField(e.value, values)
    if (name === e.name && text === e.text && value === e.value) return e
    masked.push(e.id)
    return { ...e, name, text, value }
  })
  return { extracted: { ...extracted, elements }, masked }
}

/** Playwright's screenshot options that paint boxes over. */
export interface ScreenshotMask {
  readonly mask?: Array<Locator>
  readonly maskColor?: string
}

/**
 * Screenshot options that paint over the secrets: the elements that showed one (a field's
 * value is no text a locator finds), and any element whose text holds one (a page echoing
 * it, interactable or not). Nothing to mask: no option, so an episode without secrets pays nothing.
 */
export const screenshotMask = (page: Page, masked: ReadonlyArray<string>, secrets: Iterable<string>): ScreenshotMask => {
  const mask = [...secrets].filter((s) => s.trim() !== "").map((s) => page.getByText(s))
  // Ids are only ever e<digits> (Elements.ts): nothing to escape.
  if (masked.length > 0) mask.push(page.locator(masked.map((id) => `[data-core-id="${id}"]`).join(", ")))
  return mask.length === 0 ? {} : { mask, maskColor: SECRET_MASK_COLOR }
}
