/**
 * Steps as the trajectory and demo pages show them: for each action, the screen it was taken
 * on (screenshot, set-of-marks image, element list), the action, the URL before and after.
 * An observation is the screen *after* its action, so step N is shown on the observation
 * before it (the initial one for step 0), and a last section shows where the actions led.
 *
 * The acted element is outlined wherever its screen recorded the element's box: its mark
 * (`marksOf` over the recorded element list, the boxes a set-of-marks image is drawn from)
 * is the outline, in the viewport's CSS pixels the boxes were measured in, on the plain
 * screenshot as on the marked one.
 */
import { Effect } from "effect"
import { BlobStore } from "@core/blobstore"
import { describeElement, marksOf } from "@core/environment"
import type { ElementInfo, Mark } from "@core/environment"
import type { Target } from "@core/events"
import type { Html } from "../Html.ts"
import { html } from "../Html.ts"
import { blobHref } from "./shared.ts"

/** What an observation names of a screen, as blob hashes. */
export interface ScreenRef {
  readonly screenshot: string | null
  /** The set-of-marks image; null or absent when the screen has none. */
  readonly marks?: string | null
  readonly elements: string | null
}

export interface StepSpec {
  readonly index: number
  /** The action as one line (`actionText`); the end section has none. */
  readonly action: string | null
  readonly target: Target | null
  readonly screen: ScreenRef | null
  readonly urlBefore: string | null
  readonly urlAfter: string | null
  readonly error: string | null
  /** Extra lines under the action: the label functions that held here, a key step. */
  readonly notes?: Html
}

interface Viewport {
  readonly width: number
  readonly height: number
}

interface ScreenData {
  readonly elements: ReadonlyArray<ElementInfo> | null
  readonly viewport: Viewport | null
}

export interface StepView extends StepSpec {
  readonly elements: ReadonlyArray<ElementInfo> | null
  readonly outline: { readonly mark: Mark; readonly viewport: Viewport } | null
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)
const num = (u: unknown): number | null => (typeof u === "number" && Number.isFinite(u) ? u : null)
const str = (u: unknown): string => (typeof u === "string" ? u : "")

const boxOf = (u: unknown): ElementInfo["box"] => {
  if (!isObject(u)) return null
  const [x, y, width, height] = [num(u.x), num(u.y), num(u.width), num(u.height)]
  return x === null || y === null || width === null || height === null ? null : { x, y, width, height }
}

// The blob is the platform's own JSON (web, mobile web and Android write the same element
// fields); a field that is missing or of another type reads as the platform's "unknown".
const elementOf = (u: unknown): ElementInfo | null =>
  !isObject(u)
    ? null
    : {
        id: str(u.id),
        role: str(u.role),
        name: str(u.name),
        text: str(u.text),
        value: typeof u.value === "string" ? u.value : null,
        box: boxOf(u.box),
        visible: u.visible !== false,
        inViewport: u.inViewport !== false,
        enabled: u.enabled !== false,
        editable: u.editable === true,
        checked: typeof u.checked === "boolean" ? u.checked : null
      }

const viewportOf = (u: unknown): Viewport | null => {
  if (!isObject(u)) return null
  const [width, height] = [num(u.width), num(u.height)]
  return width !== null && height !== null && width > 0 && height > 0 ? { width, height } : null
}

/** A PNG's size from its IHDR chunk, or null when the bytes are no PNG. */
export const pngSize = (bytes: Uint8Array): Viewport | null => {
  const signature = [0x89, 0x50, 0x4e, 0x47]
  if (bytes.length < 24 || signature.some((b, i) => bytes[i] !== b)) return null
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const width = view.getUint32(16)
  const height = view.getUint32(20)
  return width > 0 && height > 0 ? { width, height } : null
}

const blob = (hash: string) =>
  Effect.gen(function* () {
    const blobs = yield* BlobStore
    return yield* blobs.get(hash)
  }).pipe(Effect.orElseSucceed(() => null))

const screenData = (hash: string) =>
  Effect.map(blob(hash), (bytes): ScreenData => {
    if (bytes === null) return { elements: null, viewport: null }
    try {
      const parsed = JSON.parse(new TextDecoder().decode(bytes)) as unknown
      if (!isObject(parsed) || !Array.isArray(parsed.elements)) return { elements: null, viewport: null }
      const elements = parsed.elements.map(elementOf).filter((e): e is ElementInfo => e !== null)
      return { elements, viewport: viewportOf(parsed.viewport) }
    } catch {
      return { elements: null, viewport: null }
    }
  })

/** Reads each screen's element list (once per blob) and finds the acted element's mark. */
export const loadSteps = (specs: ReadonlyArray<StepSpec>) =>
  Effect.gen(function* () {
    const screens = new Map<string, ScreenData>()
    const views: Array<StepView> = []
    for (const spec of specs) {
      const hash = spec.screen?.elements ?? null
      if (hash !== null && !screens.has(hash)) screens.set(hash, yield* screenData(hash))
      const data = hash === null ? null : screens.get(hash)!
      const id = spec.target?.elementId ?? null
      const mark = id === null || data?.elements == null ? undefined : marksOf(data.elements).find((m) => m.id === id)
      let viewport = data?.viewport ?? null
      if (mark !== undefined && viewport === null && spec.screen?.screenshot) {
        const png = yield* blob(spec.screen.screenshot)
        viewport = png === null ? null : pngSize(png)
      }
      views.push({
        ...spec,
        elements: data?.elements ?? null,
        outline: mark !== undefined && viewport !== null ? { mark, viewport } : null
      })
    }
    return views
  })

const screenHtml = (v: StepView): Html => {
  const shot = v.screen?.screenshot ?? null
  if (shot === null) return html`<p class="muted">No screenshot recorded for this screen.</p>`
  const marks = v.screen?.marks ?? null
  const alt = v.action === null ? "the screen after the last step" : `the screen step ${v.index} acted on`
  const img =
    marks === null
      ? html`<img src="${blobHref(shot)}" alt="${alt}">`
      : html`<img src="${blobHref(shot)}" data-plain="${blobHref(shot)}" data-marked="${blobHref(marks)}" alt="${alt}">`
  const o = v.outline
  const svg =
    o === null
      ? ""
      : html`<svg viewBox="0 0 ${o.viewport.width} ${o.viewport.height}" preserveAspectRatio="none" aria-hidden="true"><rect x="${o.mark.x}" y="${o.mark.y}" width="${o.mark.width}" height="${o.mark.height}" fill="none" stroke="#e6194b" stroke-width="3" data-element-id="${o.mark.id}"></rect></svg>`
  return html`<div class="screen">${img}${svg}</div>`
}

const elementsHtml = (v: StepView): Html => {
  if (v.elements === null) return html`<p class="muted">No element list recorded for this screen.</p>`
  const acted = v.target?.elementId ?? null
  const lines = v.elements.map((e) => (e.id === acted ? html`<strong>${describeElement(e)}</strong>\n` : html`${describeElement(e)}\n`))
  return html`<details><summary>element list (${v.elements.length})</summary><pre class="code">${lines}</pre></details>`
}

const stepHtml = (v: StepView): Html => html`<section class="step" id="step-${v.index}" data-step="${v.index}">
<h3>${v.action === null ? html`End <span class="muted">after the last step</span>` : html`Step ${v.index} <span class="muted">${v.action}</span>`}</h3>
<p>URL before <code>${v.urlBefore ?? "(none)"}</code>${v.action === null ? "" : html` → after <code>${v.urlAfter ?? "(none)"}</code>`}</p>
${v.error === null ? "" : html`<p><span class="badge fail">error</span> ${v.error}</p>`}
${v.notes ?? ""}
${screenHtml(v)}
${elementsHtml(v)}
</section>`

/** The `[data-steps]` block the client's arrow keys walk, with the set-of-marks toggle when any screen has marks. */
export const stepsHtml = (views: ReadonlyArray<StepView>): Html => {
  const marked = views.some((v) => (v.screen?.marks ?? null) !== null && (v.screen?.screenshot ?? null) !== null)
  return html`${marked ? html`<p><button type="button" data-toggle-marks>show set-of-marks images</button></p>` : ""}
<p class="muted">← and → move between steps.</p>
<div data-steps>${views.map(stepHtml)}</div>`
}
