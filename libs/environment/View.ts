/**
 * The policy view: a bounded, line-per-element text of the page. A pure function of the
 * recorded element list, so replay and evaluation rebuild exactly what the policy saw.
 *
 * Truncation rule (README "Truncation"): at most `limit` elements (default 150). When
 * there are more, elements that are visible and in the viewport are kept first, then
 * other visible ones, then the rest, each group in document order; the kept elements are
 * listed in document order and a last line says how many were left out.
 */
import type { ElementInfo, PolicyView } from "./Environment.ts"
import { oneLine } from "./Environment.ts"

export const defaultElementLimit = 150

const rank = (e: ElementInfo): number => (e.visible && e.inViewport ? 0 : e.visible ? 1 : 2)

/** The elements a policy is shown, in document order. */
export const selectElements = (elements: ReadonlyArray<ElementInfo>, limit = defaultElementLimit): ReadonlyArray<ElementInfo> => {
  if (elements.length <= limit) return elements
  const order = elements.map((e, i) => ({ e, i }))
  // Array.prototype.sort is stable, so document order survives within each rank.
  const kept = order.sort((a, b) => rank(a.e) - rank(b.e)).slice(0, limit)
  return kept.sort((a, b) => a.i - b.i).map(({ e }) => e)
}

/** One line, e.g. `[e3] textbox "Email" value="a@b.c" (disabled)`. */
export const describeElement = (e: ElementInfo): string => {
  const parts = [`[${e.id}] ${e.role}`]
  if (e.name !== "") parts.push(JSON.stringify(oneLine(e.name, 120)))
  if (e.text !== "" && e.text !== e.name) parts.push(`text=${JSON.stringify(oneLine(e.text, 120))}`)
  if (e.value !== null) parts.push(`value=${JSON.stringify(oneLine(e.value, 120))}`)
  const flags: Array<string> = []
  if (e.checked !== null) flags.push(e.checked ? "checked" : "unchecked")
  if (!e.enabled) flags.push("disabled")
  if (!e.visible) flags.push("hidden")
  else if (!e.inViewport) flags.push("offscreen")
  if (flags.length > 0) parts.push(`(${flags.join(", ")})`)
  return parts.join(" ")
}

/** An element's id and its box in viewport CSS pixels, as a set-of-marks image labels it. */
export interface Mark {
  readonly id: string
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

/**
 * What a set-of-marks image labels: the elements the policy view lists (so every label is an
 * id the policy can name) that are visible and on screen, each with its box. Hidden,
 * off-screen and box-less ones are listed but would label nothing the screenshot shows.
 */
export const marksOf = (elements: ReadonlyArray<ElementInfo>, limit = defaultElementLimit): ReadonlyArray<Mark> =>
  selectElements(elements, limit).flatMap((e) =>
    e.box !== null && e.visible && e.inViewport && e.box.width > 0 && e.box.height > 0 ? [{ id: e.id, ...e.box }] : []
  )

export const policyView = (
  page: { readonly url: string | null; readonly app: string | null; readonly title: string | null; readonly error: string | null },
  elements: ReadonlyArray<ElementInfo>,
  limit = defaultElementLimit
): PolicyView => {
  const shown = selectElements(elements, limit)
  const lines = shown.map(describeElement)
  const truncated = shown.length < elements.length
  if (truncated) lines.push(`… ${elements.length - shown.length} more elements not shown (scroll to reach them)`)
  if (page.error !== null) lines.unshift(`error: ${page.error}`)
  return { ...page, text: lines.join("\n"), truncated, shown: shown.length, total: elements.length }
}
