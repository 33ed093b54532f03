/**
 * The page's text outline, read inside the page: the mobile-web environment's stand-in for
 * Playwright's aria snapshot, which WebDriver cannot take. One line per heading, link,
 * button, field, image and run of visible text, in document order, in the snapshot's own
 * shape (`- heading "Cart" [level=1]`, `- link "Blue Mug"`, `- text: $12.00`), so what
 * reads prices or review counts off a snapshot reads them off this too.
 *
 * Runs in the page: must not close over anything in this module.
 */
export const outlineInPage = (): string => {
  const win: any = globalThis
  const doc: any = win.document
  const lines: Array<string> = []
  const clean = (s: unknown): string =>
    String(s ?? "")
      .replace(/\s+/g, " ")
      .trim()
  const hidden = (el: any): boolean => {
    if (typeof el.checkVisibility === "function") return !el.checkVisibility({ visibilityProperty: true })
    const style = win.getComputedStyle(el)
    return style.display === "none" || style.visibility === "hidden"
  }
  const nameOf = (el: any): string =>
    clean(el.getAttribute("aria-label")) ||
    clean(el.labels?.[0]?.innerText) ||
    clean(el.innerText) ||
    clean(el.getAttribute("title")) ||
    clean(el.getAttribute("placeholder")) ||
    clean(el.getAttribute("alt")) ||
    clean(el.value)
  const fieldRole = (el: any): string | null => {
    const tag = el.tagName.toLowerCase()
    const type = String(el.getAttribute("type") ?? "").toLowerCase()
    if (tag === "textarea") return "textbox"
    if (tag === "select") return "combobox"
    if (tag !== "input" || type === "hidden") return null
    if (["button", "submit", "reset", "image"].includes(type)) return "button"
    if (type === "checkbox" || type === "radio") return type
    if (type === "number") return "spinbutton"
    if (type === "search") return "searchbox"
    return "textbox"
  }
  const walk = (node: any): void => {
    if (node.nodeType === 3) {
      const text = clean(node.textContent)
      if (text !== "") lines.push(`- text: ${text}`)
      return
    }
    if (node.nodeType !== 1) return
    const el = node
    const tag = el.tagName.toLowerCase()
    if (["script", "style", "noscript", "template", "head"].includes(tag) || hidden(el)) return
    const heading = /^h([1-6])$/.exec(tag)
    if (heading !== null) return void lines.push(`- heading "${nameOf(el)}" [level=${heading[1]}]`)
    if (tag === "a" && el.hasAttribute("href")) return void lines.push(`- link "${nameOf(el)}"`)
    if (tag === "button") return void lines.push(`- button "${nameOf(el)}"`)
    if (tag === "img") return void (clean(el.getAttribute("alt")) !== "" && lines.push(`- img "${clean(el.getAttribute("alt"))}"`))
    const role = fieldRole(el)
    if (role !== null) {
      const type = String(el.getAttribute("type") ?? "").toLowerCase()
      const value =
        type === "password"
          ? "•".repeat(String(el.value ?? "").length)
          : clean(tag === "select" ? el.options[el.selectedIndex]?.text : el.value)
      const state = role === "checkbox" || role === "radio" ? (el.checked ? " [checked]" : "") : value === "" ? "" : `: ${value}`
      return void lines.push(`- ${role} "${nameOf(el)}"${state}`)
    }
    for (const child of Array.from(el.childNodes as ArrayLike<any>)) walk(child)
  }
  if (doc.body) walk(doc.body)
  return lines.join("\n")
}
