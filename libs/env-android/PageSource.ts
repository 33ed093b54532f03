/**
 * A UiAutomator2 page source as the common element list (`ElementInfo`, shared with the
 * web), pure. Both formats read the same: Appium's `getPageSource` (root `<hierarchy
 * class="hierarchy" width height>`, each element named after its widget class) and
 * `uiautomator dump` (root `<hierarchy rotation>`, every element a `<node>`); the widget
 * class is the `class` attribute in both.
 *
 * Which elements: the ones a policy can act on or read — clickable, long-clickable,
 * checkable, text fields, scrollable, or with text or a content description. Layout
 * wrappers without any of that are left out.
 *
 * Role, from the widget class (the simple name, after the last dot), first match wins:
 *
 * | class / state                                              | role        |
 * |------------------------------------------------------------|-------------|
 * | …EditText, AutoCompleteTextView, SearchView$SearchAutoComplete | textbox |
 * | RadioButton                                                | radio       |
 * | Switch, SwitchCompat, SwitchMaterial, ToggleButton         | switch      |
 * | …CheckBox                                                  | checkbox    |
 * | Spinner                                                    | combobox    |
 * | SeekBar, RatingBar, Slider                                 | slider      |
 * | TabWidget, TabLayout                                       | tablist     |
 * | …$Tab, …TabView, or any child of a TabWidget               | tab         |
 * | any other checkable (CheckedTextView, CompoundButton, …)    | checkbox    |
 * | …Button (Button, ImageButton, MaterialButton, FAB, …)      | button      |
 * | ProgressBar                                                | progressbar |
 * | scrollable ListView, RecyclerView, GridView                | list        |
 * | any other scrollable (ScrollView, ViewPager, …)            | scrollable  |
 * | any other clickable (TextView, ImageView, a layout, …)     | button      |
 * | …TextView                                                  | text        |
 * | …ImageView                                                 | image       |
 * | anything else                                              | generic     |
 *
 * Name, first non-empty: the content description; the text (not for text fields, whose
 * text is their value and changes as one types); the hint; for an actionable element, the
 * descriptions and texts of its descendants (a Compose or layout button wraps its label in
 * a child, as a web button wraps its text); for a checkbox, radio, switch, slider, combobox
 * or text field, its siblings' text when its parent is a small wrapper (the label next to
 * it, as a web `<label>` names its input); the last segment of the resource id made
 * readable (`aerr_close` → "aerr close"; obfuscated ids are skipped).
 *
 * Ids are `e<digits>` like the web's and episode-local. Android has no node identity to
 * pin an id on, so an element is keyed by the path of `class#resource-id` from the root,
 * its bounds, and (except for text fields, whose label may vanish as one types) its name.
 * The caller keeps the key → id map and the counter for the episode: the same element in
 * the same place keeps its id across observations; an element that moved (a scroll), or a
 * recycled list row now showing other content, gets a new id, and its old id is stale —
 * never silently another element. Keys repeated within one screen get an occurrence suffix.
 */
import { Result, Schema } from "effect"
import type { Box, ElementInfo } from "@core/environment"
import type { Viewport } from "./Gestures.ts"
import { visiblePart } from "./Gestures.ts"
import { parseXml, serializeXml } from "./Xml.ts"
import type { XmlElement } from "./Xml.ts"

/** A page source that cannot be read: malformed XML, or not a UI hierarchy. */
export class PageSourceError extends Schema.TaggedError<PageSourceError>()("PageSourceError", {
  reason: Schema.String
}) {
  override get message() {
    return `unreadable page source: ${this.reason}`
  }
}

export type PageSourceFormat = "appium" | "uiautomator"

/** One view of the hierarchy with its attributes read; indices are document order. */
export interface UiNode {
  readonly index: number
  readonly parent: number | null
  readonly children: ReadonlyArray<number>
  readonly className: string
  readonly packageName: string
  readonly resourceId: string
  readonly text: string
  readonly contentDesc: string
  readonly hint: string
  readonly bounds: string
  readonly box: Box | null
  readonly clickable: boolean
  readonly longClickable: boolean
  readonly checkable: boolean
  readonly checked: boolean
  readonly enabled: boolean
  readonly focused: boolean
  readonly scrollable: boolean
  readonly password: boolean
  /** Appium's `displayed`, or the dump's `visible-to-user`; true when the dump has neither. */
  readonly displayed: boolean
  /** The text is the field's hint, shown while it is empty (Appium's `showing-hint`). */
  readonly showingHint: boolean
}

export interface UiTree {
  readonly format: PageSourceFormat
  readonly rotation: number
  readonly viewport: Viewport
  readonly nodes: ReadonlyArray<UiNode>
  readonly root: XmlElement
}

/** `"[x1,y1][x2,y2]"` → a box; null when malformed or without area. */
export const parseBounds = (bounds: string): Box | null => {
  const m = /^\s*\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]\s*$/.exec(bounds)
  if (m === null) return null
  const [x1, y1, x2, y2] = [m[1], m[2], m[3], m[4]].map(Number) as [number, number, number, number]
  return x2 > x1 && y2 > y1 ? { x: x1, y: y1, width: x2 - x1, height: y2 - y1 } : null
}

/** The screen size: the root's width and height (Appium), else the furthest bounds of any element (a dump). */
export const viewportOf = (root: XmlElement): Viewport => {
  const width = Number(root.attributes.width)
  const height = Number(root.attributes.height)
  if (width > 0 && height > 0) return { width, height }
  let right = 0
  let bottom = 0
  const stack = [...root.children]
  for (let el = stack.pop(); el !== undefined; el = stack.pop()) {
    const box = parseBounds(el.attributes.bounds ?? "")
    if (box !== null) {
      right = Math.max(right, box.x + box.width)
      bottom = Math.max(bottom, box.y + box.height)
    }
    stack.push(...el.children)
  }
  return { width: right, height: bottom }
}

const flag = (attrs: Readonly<Record<string, string>>, key: string, absent = false): boolean =>
  attrs[key] === undefined ? absent : attrs[key] === "true"

/** Reads a page source into its nodes, or says in one line why it cannot. */
export const readPageSource = (xml: string): Result.Result<UiTree, PageSourceError> => {
  const parsed = parseXml(xml)
  if (Result.isFailure(parsed)) return Result.fail(new PageSourceError({ reason: parsed.failure.message }))
  const root = parsed.success
  if (root.name !== "hierarchy") {
    return Result.fail(new PageSourceError({ reason: `the root element is <${root.name}>, not a UiAutomator <hierarchy>` }))
  }
  const nodes: Array<UiNode> = []
  const visit = (el: XmlElement, parent: number | null): number => {
    const a = el.attributes
    const index = nodes.length
    const children: Array<number> = []
    const bounds = a.bounds ?? ""
    nodes.push({
      index,
      parent,
      children,
      className: a.class ?? (el.name === "node" ? "" : el.name),
      packageName: a.package ?? "",
      resourceId: a["resource-id"] ?? "",
      text: a.text ?? "",
      contentDesc: a["content-desc"] ?? "",
      hint: a.hint ?? "",
      bounds,
      box: parseBounds(bounds),
      clickable: flag(a, "clickable"),
      longClickable: flag(a, "long-clickable"),
      checkable: flag(a, "checkable"),
      checked: flag(a, "checked"),
      enabled: flag(a, "enabled", true),
      focused: flag(a, "focused"),
      scrollable: flag(a, "scrollable"),
      password: flag(a, "password"),
      displayed: flag(a, "displayed", true) && flag(a, "visible-to-user", true),
      showingHint: flag(a, "showing-hint")
    })
    for (const child of el.children) children.push(visit(child, index))
    return index
  }
  // Depth is that of the UI (a few dozen levels), so recursion is safe here.
  for (const child of root.children) visit(child, null)
  return Result.succeed({
    format: root.attributes.class === "hierarchy" || root.attributes.width !== undefined ? "appium" : "uiautomator",
    rotation: Number(root.attributes.rotation ?? 0) || 0,
    viewport: viewportOf(root),
    nodes,
    root
  })
}

/** Collapses whitespace to one line and caps the length, as the web's element texts are. */
const clean = (text: string, max = 200): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? flat.slice(0, max) : flat
}

const simpleName = (className: string): string => className.slice(className.lastIndexOf(".") + 1)

const isTextField = (className: string): boolean => /(EditText|AutoCompleteTextView|SearchAutoComplete)$/.test(simpleName(className))

/** The role of a node (table in the module comment); `parentClass` tells a TabWidget's children. */
export const roleOf = (node: UiNode, parentClass: string | null = null): string => {
  const s = simpleName(node.className)
  if (isTextField(node.className)) return "textbox"
  if (/RadioButton$/.test(s)) return "radio"
  if (/(Switch|SwitchCompat|SwitchMaterial|ToggleButton)$/.test(s)) return "switch"
  if (/CheckBox$/i.test(s)) return "checkbox"
  if (/Spinner$/.test(s)) return "combobox"
  if (/(SeekBar|RatingBar|Slider)$/.test(s)) return "slider"
  if (/(TabWidget|TabLayout)$/.test(s)) return "tablist"
  if (/(^|\$)Tab$|TabView$/.test(s) || (parentClass !== null && /TabWidget$/.test(simpleName(parentClass)))) return "tab"
  if (node.checkable) return "checkbox"
  if (/Button$/.test(s)) return "button"
  if (/ProgressBar$/.test(s)) return "progressbar"
  if (node.scrollable) return /(ListView|RecyclerView|GridView)$/.test(s) ? "list" : "scrollable"
  if (node.clickable) return "button"
  if (/TextView$/.test(s)) return "text"
  if (/ImageView$/.test(s)) return "image"
  return "generic"
}

/** `com.app:id/search_button` → "search button", `sendBtn` → "send btn"; "" for none or an obfuscated one. */
export const readableId = (resourceId: string): string => {
  const last = resourceId.slice(resourceId.lastIndexOf("/") + 1)
  if (last === "" || /obfuscated/i.test(last)) return ""
  return clean(
    last
      .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
      .replace(/[_.-]+/g, " ")
      .toLowerCase()
  )
}

const LABELLED_BY_SIBLINGS: ReadonlySet<string> = new Set(["checkbox", "radio", "switch", "slider", "combobox", "textbox"])
/** A control is named after its siblings only when its parent holds at most this many children. */
const maxLabelSiblings = 3
const NO_CONTENT_NAME: ReadonlySet<string> = new Set(["list", "scrollable", "tablist"])

export interface IdState {
  readonly nextId: number
  /** Element key → id, for the whole episode (see the module comment). */
  readonly known: ReadonlyMap<string, string>
}

/** Where an episode's ids start. */
export const freshIds: IdState = { nextId: 1, known: new Map() }

export interface PageElements extends IdState {
  readonly elements: ReadonlyArray<ElementInfo>
}

/** The element list of a screen, with ids from (and added to) the episode's `ids`. */
export const elementsOf = (tree: UiTree, ids: IdState): PageElements => {
  const { nodes, viewport } = tree
  const known = new Map(ids.known)
  let nextId = ids.nextId

  /**
   * Descriptions and texts under `index`, in document order, leaving out controls of their
   * own; a description stands for its whole subtree.
   */
  const content = (index: number, skip: number | null = null): string => {
    const parts: Array<string> = []
    let length = 0
    const walk = (i: number): void => {
      for (const c of nodes[i]!.children) {
        if (length > 200) return
        const child = nodes[c]!
        // A control inside (a button in a card) names itself, not its container.
        if (c === skip || !child.displayed || child.clickable) continue
        const own = clean(child.contentDesc) || (isTextField(child.className) ? "" : clean(child.text))
        // An icon's description often repeats its caption ("PNR" above "PNR"): say it once.
        if (own !== "" && !parts.includes(own)) {
          parts.push(own)
          length += own.length + 1
          if (child.contentDesc.trim() !== "") continue
        }
        walk(c)
      }
    }
    walk(index)
    return clean(parts.join(" "))
  }

  const paths: Array<string> = []
  const seen = new Map<string, number>()
  const elements: Array<ElementInfo> = []
  for (const node of nodes) {
    const parent = node.parent === null ? null : nodes[node.parent]!
    paths.push(`${parent === null ? "" : paths[parent.index]}>${node.className}#${node.resourceId}`)
    const field = isTextField(node.className)
    const hasText = node.text.trim() !== "" || node.contentDesc.trim() !== ""
    if (!(node.clickable || node.longClickable || node.checkable || node.scrollable || field || hasText)) continue

    const role = roleOf(node, parent?.className ?? null)
    const actionable = node.clickable || node.longClickable || node.checkable || field
    const hint = node.hint !== "" ? node.hint : field && node.showingHint ? node.text : ""
    let name = clean(node.contentDesc) || (field ? "" : clean(node.text)) || clean(hint)
    if (name === "" && actionable && !NO_CONTENT_NAME.has(role)) name = content(node.index)
    // Only a small parent is a label's wrapper: in a big container the siblings are other controls.
    if (name === "" && LABELLED_BY_SIBLINGS.has(role) && parent !== null && parent.children.length <= maxLabelSiblings) {
      name = clean(content(parent.index, node.index), 80)
    }
    if (name === "") name = readableId(node.resourceId)

    const visible = node.displayed && node.box !== null
    const typed = field && !node.showingHint ? node.text : ""
    const value = !field ? null : node.password ? "•".repeat(typed.length) : clean(typed, 500)

    const base = `${paths[node.index]}@${node.bounds}${field ? "" : `=${name}`}`
    const occurrence = (seen.get(base) ?? 0) + 1
    seen.set(base, occurrence)
    const key = occurrence === 1 ? base : `${base}#${occurrence}`
    let id = known.get(key)
    if (id === undefined) {
      id = `e${nextId++}`
      known.set(key, id)
    }
    elements.push({
      id,
      role,
      name,
      text: field ? "" : clean(node.text),
      value,
      box: node.box,
      visible,
      inViewport: visible && visiblePart(node.box!, viewport) !== null,
      enabled: node.enabled,
      editable: field && node.enabled,
      checked: node.checkable ? node.checked : null
    })
  }
  return { elements, nextId, known }
}

export interface ParsedPage extends PageElements {
  readonly tree: UiTree
  readonly viewport: Viewport
}

/** Page source text → element list, in one step. */
export const parsePageSource = (xml: string, ids: IdState = freshIds): Result.Result<ParsedPage, PageSourceError> =>
  Result.map(readPageSource(xml), (tree) => ({ ...elementsOf(tree, ids), tree, viewport: tree.viewport }))

/** The hierarchy as XML with the text of password fields masked: what is stored as the observation's tree blob. */
export const maskedHierarchy = (tree: UiTree): string => {
  const mask = (el: XmlElement): XmlElement => ({
    name: el.name,
    attributes:
      el.attributes.password === "true" && el.attributes.text !== undefined && el.attributes["showing-hint"] !== "true"
        ? { ...el.attributes, text: "•".repeat(el.attributes.text.length) }
        : el.attributes,
    children: el.children.map(mask)
  })
  return serializeXml(mask(tree.root))
}

/** The package of the app on screen: that of the first node outside the system UI, else of the first node. */
export const foregroundPackage = (tree: UiTree): string | null => {
  const packages = tree.nodes.map((n) => n.packageName).filter((p) => p !== "")
  return packages.find((p) => p !== "com.android.systemui") ?? packages[0] ?? null
}
