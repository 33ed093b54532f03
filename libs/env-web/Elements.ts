/**
 * Interactable-element extraction, run inside the page.
 *
 * Ids: each interactable node gets a `data-core-id` attribute the first time it is seen;
 * the counter lives in the environment (not the page), so ids stay stable for the same
 * DOM node across observations and are never reused after a navigation — an id from the
 * previous document is stale, not silently another element.
 *
 * Role and name are a small heuristic, not the full accname algorithm (the aria snapshot
 * blob holds Playwright's exact tree):
 * - role: explicit `role` (first token), else implicit by tag/type (a[href] → link,
 *   button/summary/input[type=button|submit|reset|image] → button, checkbox, radio,
 *   range → slider, number → spinbutton, search → searchbox, other inputs and textarea
 *   and contenteditable → textbox, select → combobox or listbox), else `generic`;
 * - name: aria-labelledby, aria-label, associated `<label>`s, then for buttons, links
 *   and similar the visible text (or a contained image's alt), the value of input
 *   buttons, then title, placeholder, alt.
 * Only the main frame's light DOM is read (no iframes, no shadow roots).
 *
 * Texts are white space collapsed and cut: names and texts at 200 characters, a field's
 * value at 500, a textarea's at 10,000 — an edit of a page's source is judged by the whole
 * text it left (synthesis 5), and an append to a long log lands past 500. (Scrub.ts knows
 * these lengths: a secret a cut left part of is masked too.)
 * Offsite: given the episode's origins, a link whose `href`, or a submit button whose
 * form's `action` (its own `formaction` first), resolves outside them is marked
 * `offsite: true` (`javascript:` URLs stay in the page and are never offsite).
 * Covered: while a modal is open (an `aria-modal="true"` dialog or a `<dialog>` shown
 * modally), an element outside it is marked `covered: true`; so is an element in the
 * viewport whose centre another element, not its own, would take the click at. A click on
 * either waits for the browser's actionability check and times out.
 */
import type { ElementInfo } from "@core/environment"

export interface Extracted {
  readonly elements: ReadonlyArray<ElementInfo>
  readonly nextId: number
  readonly viewport: { readonly width: number; readonly height: number }
  readonly scroll: { readonly x: number; readonly y: number }
  /** Password field values, so they can be masked in the aria snapshot too; never stored. */
  readonly secrets: ReadonlyArray<string>
  /** Where the offsite guard (Guard.ts) last stopped the page from going, since the last read; never stored. */
  readonly refused?: string
}

export const interactableSelector = [
  "a[href]",
  "button",
  "input:not([type=hidden])",
  "select",
  "textarea",
  "summary",
  "[contenteditable=''], [contenteditable=true]",
  "[onclick]",
  "[tabindex]:not([tabindex='-1'])",
  ...[
    "button",
    "link",
    "checkbox",
    "radio",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "switch",
    "textbox",
    "combobox",
    "searchbox",
    "slider",
    "spinbutton",
    "listbox",
    "treeitem"
  ].map((r) => `[role=${r}]`)
].join(", ")

/** Runs in the page: must not close over anything in this module. */
export const extractInPage = (args: { selector: string; nextId: number; origins?: ReadonlyArray<string> }): Extracted => {
  const win: any = globalThis
  const doc: any = win.document
  let next = args.nextId
  const origins = args.origins ?? []
  const leaves = (raw: unknown): boolean => {
    try {
      const u = new win.URL(String(raw), doc.baseURI)
      return u.protocol !== "javascript:" && !origins.includes(u.origin)
    } catch {
      return false
    }
  }
  // A button's `formAction` reads as the page's own URL when the attribute is absent: the form's action applies then.
  const submitTarget = (el: any): string | null => {
    const tag = el.tagName
    const type = String(el.type ?? "").toLowerCase()
    const submits = (tag === "BUTTON" && type === "submit") || (tag === "INPUT" && (type === "submit" || type === "image"))
    if (!submits || !el.form) return null
    return el.hasAttribute("formaction") ? el.formAction : el.form.action
  }
  const offsiteOf = (el: any): boolean => {
    if (origins.length === 0) return false
    if ((el.tagName === "A" || el.tagName === "AREA") && el.hasAttribute("href")) return leaves(el.href)
    const target = submitTarget(el)
    return target !== null && leaves(target)
  }
  // The topmost open modal, if any: what lies outside it cannot be clicked while it is open.
  const modals = Array.from(doc.querySelectorAll("[aria-modal=true], dialog[open]") as ArrayLike<any>).filter(
    (m: any) => m.getAttribute("aria-modal") === "true" || m.matches?.(":modal") === true
  )
  const modal = modals.length === 0 ? null : modals[modals.length - 1]
  const coveredOf = (el: any, rect: any, inViewport: boolean): boolean => {
    if (modal !== null && !modal.contains(el)) return true
    if (!inViewport) return false
    const x = Math.min(Math.max(rect.left + rect.width / 2, 0), win.innerWidth - 1)
    const y = Math.min(Math.max(rect.top + rect.height / 2, 0), win.innerHeight - 1)
    const hit = doc.elementFromPoint(x, y)
    // Its own text, icon or label may take the point: only another element covers it.
    if (hit === null || el.contains(hit) || hit.contains(el)) return false
    return !Array.from((el.labels ?? []) as ArrayLike<any>).some((l: any) => l.contains(hit))
  }
  const clean = (s: unknown, max = 200): string => {
    const flat = String(s ?? "")
      .replace(/\s+/g, " ")
      .trim()
    return flat.length > max ? flat.slice(0, max) : flat
  }
  const textInputTypes = ["text", "email", "password", "tel", "url", "search", "number", ""]
  const implicitRole = (el: any): string => {
    const tag = el.tagName.toLowerCase()
    const type = String(el.getAttribute("type") ?? "").toLowerCase()
    if (tag === "a") return "link"
    if (tag === "button" || tag === "summary") return "button"
    if (tag === "select") return el.multiple || el.size > 1 ? "listbox" : "combobox"
    if (tag === "textarea") return "textbox"
    if (tag === "input") {
      if (["button", "submit", "reset", "image"].includes(type)) return "button"
      if (type === "checkbox" || type === "radio") return type
      if (type === "range") return "slider"
      if (type === "number") return "spinbutton"
      if (el.hasAttribute("list")) return "combobox"
      if (type === "search") return "searchbox"
      return "textbox"
    }
    if (el.isContentEditable) return "textbox"
    return "generic"
  }
  const nameFromContent = [
    "button",
    "link",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "treeitem",
    "checkbox",
    "radio",
    "switch",
    "generic"
  ]
  const accessibleName = (el: any, role: string): string => {
    const labelledby = el.getAttribute("aria-labelledby")
    if (labelledby) {
      const text = labelledby
        .split(/\s+/)
        .map((id: string) => doc.getElementById(id)?.textContent ?? "")
        .join(" ")
      if (clean(text)) return clean(text)
    }
    if (clean(el.getAttribute("aria-label"))) return clean(el.getAttribute("aria-label"))
    if (el.labels && el.labels.length > 0) {
      const text = Array.from(el.labels as ArrayLike<any>)
        .map((l: any) => l.innerText ?? l.textContent)
        .join(" ")
      if (clean(text)) return clean(text)
    }
    if (nameFromContent.includes(role)) {
      const text = clean(el.innerText ?? el.textContent)
      if (text) return text
      const img = el.querySelector?.("img[alt]")
      if (img && clean(img.getAttribute("alt"))) return clean(img.getAttribute("alt"))
    }
    if (el.tagName === "INPUT" && ["button", "submit", "reset"].includes(el.type) && clean(el.value)) return clean(el.value)
    for (const attr of ["title", "placeholder", "alt"]) {
      if (clean(el.getAttribute(attr))) return clean(el.getAttribute(attr))
    }
    return ""
  }
  const vw = win.innerWidth
  const vh = win.innerHeight
  const elements: Array<ElementInfo> = []
  const secrets: Array<string> = []
  for (const el of Array.from(doc.querySelectorAll(args.selector) as ArrayLike<any>)) {
    let id = el.getAttribute("data-core-id")
    if (!id) {
      id = `e${next++}`
      el.setAttribute("data-core-id", id)
    }
    const role = clean(el.getAttribute("role")).split(" ")[0] || implicitRole(el)
    const rect = el.getBoundingClientRect()
    const hasBox = rect.width > 0 && rect.height > 0
    const visible = hasBox && el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })
    const tag = el.tagName
    const isField = tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT"
    const enabled = !el.matches(":disabled") && el.getAttribute("aria-disabled") !== "true"
    const textual = (tag === "INPUT" && textInputTypes.includes(String(el.type))) || tag === "TEXTAREA"
    const editable = enabled && ((textual && !el.readOnly) || el.isContentEditable === true)
    if (tag === "INPUT" && el.type === "password" && el.value) secrets.push(String(el.value))
    // A toggle button's pressed state is its checked state: an undone vote must show on the page.
    const ariaChecked = el.getAttribute("aria-checked") ?? el.getAttribute("aria-pressed")
    const checked =
      tag === "INPUT" && (el.type === "checkbox" || el.type === "radio")
        ? Boolean(el.checked)
        : ariaChecked === "true"
          ? true
          : ariaChecked === "false"
            ? false
            : null
    const value =
      !isField || ["checkbox", "radio", "button", "submit", "reset", "image"].includes(el.type)
        ? null
        : el.type === "password"
          ? "•".repeat(String(el.value).length)
          : // A text area's edit is judged by what it made of the whole text (synthesis 5): a page's source, not a line.
            clean(el.value, tag === "TEXTAREA" ? 10_000 : 500)
    const inViewport = visible && rect.bottom > 0 && rect.right > 0 && rect.top < vh && rect.left < vw
    elements.push({
      id,
      role,
      name: accessibleName(el, role),
      text: tag === "SELECT" ? clean(el.selectedOptions?.[0]?.textContent) : clean(el.innerText ?? el.textContent),
      value,
      box: hasBox ? { x: Math.round(rect.x), y: Math.round(rect.y), width: Math.round(rect.width), height: Math.round(rect.height) } : null,
      visible,
      inViewport,
      enabled,
      editable,
      checked,
      ...(offsiteOf(el) ? { offsite: true } : {}),
      ...(visible && coveredOf(el, rect, inViewport) ? { covered: true } : {})
    })
  }
  const refused = win.__coreRefused
  win.__coreRefused = undefined
  return {
    elements,
    nextId: next,
    viewport: { width: vw, height: vh },
    scroll: { x: Math.round(win.scrollX), y: Math.round(win.scrollY) },
    secrets,
    ...(typeof refused === "string" ? { refused } : {})
  }
}

/** Playwright's aria snapshot shows a textbox's value even for passwords: mask them like the element list does. */
export const maskSecrets = (aria: string, secrets: ReadonlyArray<string>): string =>
  secrets.reduce(
    (text, secret) =>
      text
        .split("\n")
        .map((line) =>
          line.endsWith(`: ${secret}`) && /^\s*- textbox\b/.test(line)
            ? `${line.slice(0, line.length - secret.length)}${"•".repeat(secret.length)}`
            : line
        )
        .join("\n"),
    aria
  )
