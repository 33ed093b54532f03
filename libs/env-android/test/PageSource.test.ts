/**
 * The page-source parser against real UiAutomator2 dumps (fixtures/uiautomator2/SOURCES.md
 * says what each screen is and where it came from), both formats.
 */
import { describe, expect, test } from "bun:test"
import { Result } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { ElementInfo } from "@core/environment"
import { describeElement } from "@core/environment"
import { tapPoint } from "../Gestures.ts"
import {
  elementsOf,
  foregroundPackage,
  freshIds,
  maskedHierarchy,
  parseBounds,
  parsePageSource,
  readableId,
  readPageSource,
  roleOf
} from "../PageSource.ts"
import type { IdState, ParsedPage, UiNode } from "../PageSource.ts"

const fixture = (name: string): string => readFileSync(join(import.meta.dir, "fixtures/uiautomator2", `${name}.xml`), "utf8")

const parse = (xml: string, ids: IdState = freshIds): ParsedPage => {
  const r = parsePageSource(xml, ids)
  if (Result.isFailure(r)) throw new Error(r.failure.message)
  return r.success
}

const screen = (name: string): ParsedPage => parse(fixture(name))

const find = (elements: ReadonlyArray<ElementInfo>, role: string, name: string): ElementInfo => {
  const found = elements.filter((e) => e.role === role && e.name === name)
  if (found.length !== 1) throw new Error(`expected one ${role} "${name}", found ${found.length}`)
  return found[0]!
}

const FIXTURES = [
  "appium-settings-main",
  "appium-anr-dialog",
  "appium-playstore-games-list",
  "appium-pixel-launcher-home",
  "dump-pixel-launcher-home",
  "dump-train-search-form",
  "dump-network-type-dialog",
  "dump-homee-welcome-login",
  "dump-chat-edittext"
] as const

describe("every fixture", () => {
  for (const name of FIXTURES) {
    test(`given ${name}, when parsed, then ids are unique e<digits>, boxes lie in the screen and nothing is empty-handed`, () => {
      const page = screen(name)
      expect(page.tree.format).toBe(name.startsWith("appium") ? "appium" : "uiautomator")
      expect(page.elements.length).toBeGreaterThan(0)
      const ids = page.elements.map((e) => e.id)
      expect(new Set(ids).size).toBe(ids.length)
      for (const id of ids) expect(id).toMatch(/^e\d+$/)
      expect(page.nextId).toBe(ids.length + 1)
      for (const e of page.elements) {
        expect(e.box).not.toBeNull()
        expect(e.box!.x + e.box!.width).toBeLessThanOrEqual(page.viewport.width)
        expect(e.box!.y + e.box!.height).toBeLessThanOrEqual(page.viewport.height)
        expect(e.name).toBe(e.name.replace(/\s+/g, " ").trim())
        // Every listed element has something to act on or to read.
        expect(e.name !== "" || e.text !== "" || e.role !== "generic").toBe(true)
      }
    })
  }
})

describe("Appium getPageSource screens", () => {
  test("given Settings home, when parsed, then the search bar is a button named by its caption and the category list scrolls", () => {
    const page = screen("appium-settings-main")
    expect(page.viewport).toEqual({ width: 1080, height: 2088 })
    const search = find(page.elements, "button", "Search settings")
    expect(search.box).toEqual({ x: 22, y: 88, width: 1036, height: 132 })
    const list = find(page.elements, "scrollable", "main content scrollable container")
    expect(list.box).toEqual({ x: 0, y: 66, width: 1080, height: 2022 })
    // &amp; in the dump is decoded, and a row is named by its title and summary.
    const network = find(page.elements, "button", "Network & internet Wi‑Fi, mobile, data usage, and hotspot")
    expect(network.box).toEqual({ x: 0, y: 397, width: 1080, height: 200 })
    expect(find(page.elements, "text", "Battery").box).toEqual({ x: 198, y: 1041, width: 145, height: 59 })
    expect(foregroundPackage(page.tree)).toBe("com.android.settings")
  })

  test("given the ANR dialog, when parsed, then exactly its title and the Close app and Wait buttons are listed", () => {
    const page = screen("appium-anr-dialog")
    expect(page.elements.map(describeElement)).toEqual([
      `[e1] text "Settings isn't responding"`,
      `[e2] button "Close app"`,
      `[e3] button "Wait"`
    ])
    const close = find(page.elements, "button", "Close app")
    expect(close.box).toEqual({ x: 72, y: 1016, width: 936, height: 132 })
    expect(tapPoint(close.box!)).toEqual({ x: 540, y: 1082 })
    expect(close).toMatchObject({ visible: true, inViewport: true, enabled: true, editable: false, checked: null, value: null })
  })

  test("given the Play Store games tab, when parsed, then its five scroll containers, tabs and bottom navigation are there", () => {
    const page = screen("appium-playstore-games-list")
    const scrollers = page.elements.filter((e) => e.role === "list" || e.role === "scrollable")
    expect(scrollers).toHaveLength(5)
    expect(scrollers.filter((e) => e.role === "list").map((e) => e.box)).toContainEqual({ x: 0, y: 956, width: 1080, height: 545 })
    for (const tab of ["For you", "Top charts", "New", "Events", "Games", "Apps", "Books", "Movies & TV"])
      find(page.elements, "button", tab)
    // A multi-line description becomes one line; the card's own button is not part of the card's name.
    find(page.elements, "button", "Discover recommended games")
    find(page.elements, "button", "ねこと共に過ごす最高のなつやすみ")
    find(page.elements, "button", "Check it out")
    // Obfuscated resource ids are not names.
    expect(page.elements.some((e) => /obfuscated/.test(e.name))).toBe(false)
  })

  test("given the Pixel launcher (Appium 2 attributes), when parsed, then app icons are buttons named by their description", () => {
    const page = screen("appium-pixel-launcher-home")
    expect(page.viewport).toEqual({ width: 1080, height: 2424 })
    for (const app of ["Phone", "Messages", "Chrome", "Gmail", "Photos"]) find(page.elements, "button", app)
    const store = find(page.elements, "button", "Play Store has 1 notification")
    expect(store.text).toBe("Play Store")
    expect(find(page.elements, "button", "Google Lens").box).toEqual({ x: 853, y: 2149, width: 126, height: 165 })
    expect(find(page.elements, "scrollable", "workspace").box).toEqual({ x: 0, y: 0, width: 1080, height: 2424 })
  })
})

describe("uiautomator dump screens", () => {
  test("given the Pixel launcher dump, when parsed, then the viewport comes from the largest bounds and the hotseat is there", () => {
    const page = screen("dump-pixel-launcher-home")
    expect(page.tree.rotation).toBe(0)
    expect(page.viewport).toEqual({ width: 1080, height: 1794 })
    for (const app of ["Phone", "Messages", "Play Store", "Chrome", "Apps list"]) find(page.elements, "button", app)
    expect(find(page.elements, "text", "56°F").box).toEqual({ x: 758, y: 172, width: 129, height: 85 })
  })

  test("given the train search form, when parsed, then Find trains is a button, the station pickers are comboboxes and the EditTexts textboxes", () => {
    const page = screen("dump-train-search-form")
    const findTrains = find(page.elements, "button", "Find trains")
    expect(findTrains.box).toEqual({ x: 48, y: 1166, width: 984, height: 144 })
    expect(find(page.elements, "combobox", "Rura").box).toEqual({ x: 323, y: 755, width: 589, height: 177 })
    find(page.elements, "combobox", "Phaphund")
    find(page.elements, "button", "Swap Stations")
    const fields = page.elements.filter((e) => e.role === "textbox")
    expect(fields).toHaveLength(2)
    // The dump has both fields enabled="false": they open a search screen when tapped.
    expect(fields.map((f) => [f.value, f.enabled, f.editable])).toEqual([
      ["Gomti Express", false, false],
      ["", false, false]
    ])
    expect(fields[0]!.text).toBe("")
    expect(fields[1]!.name).toBe("Station departure board")
    expect(fields[1]!.box).toEqual({ x: 186, y: 1601, width: 702, height: 257 })
    expect(page.elements.filter((e) => e.role === "scrollable")).toHaveLength(1)
  })

  test("given the network-type dialog, when parsed, then four radio buttons are named by their labels and only 5G is checked", () => {
    const page = screen("dump-network-type-dialog")
    const radios = page.elements.filter((e) => e.role === "radio")
    expect(radios.map((r) => [r.name, r.checked])).toEqual([
      ["5G preferencial", true],
      ["LTE preferencial", false],
      ["3G preferencial", false],
      ["Apenas 2G", false]
    ])
    expect(radios[0]!.box).toEqual({ x: 80, y: 523, width: 56, height: 188 })
    // The rows themselves are the clickable parts.
    expect(find(page.elements, "button", "LTE preferencial").box).toEqual({ x: 0, y: 711, width: 1080, height: 188 })
    find(page.elements, "button", "Voltar")
    expect(foregroundPackage(page.tree)).toBe("com.android.phone")
  })

  test("given the Homee welcome screen with the status bar, when parsed, then both windows' elements are there and the app is not SystemUI", () => {
    const page = screen("dump-homee-welcome-login")
    find(page.elements, "button", "Log In")
    find(page.elements, "button", "I am new here")
    find(page.elements, "button", "Terms of Service")
    // U+202F in "6:44 PM" is whitespace, collapsed like any other.
    find(page.elements, "text", "6:44 PM")
    find(page.elements, "generic", "Battery 100 percent.")
    expect(page.elements.every((e) => e.visible)).toBe(true)
    expect(foregroundPackage(page.tree)).toBe("de.vorwerk.homee.homee")
  })

  test("given the chat app, when parsed, then the EditText is a focused-able textbox named by its placeholder and Send is disabled", () => {
    const page = screen("dump-chat-edittext")
    const input = find(page.elements, "textbox", "Type a message...")
    expect(input).toMatchObject({ value: "", text: "", editable: true, enabled: true, box: { x: 32, y: 2211, width: 869, height: 147 } })
    expect(find(page.elements, "button", "Send").enabled).toBe(false)
    // "&#10;&#10;Hello!" is decoded and collapsed.
    find(page.elements, "text", "Hello!")
  })
})

describe("visibility", () => {
  test("given an element with displayed=false, when parsed, then it is listed as hidden, not in the viewport", () => {
    const xml = fixture("appium-anr-dialog").replace(/(resource-id="android:id\/aerr_wait"[^>]*?)displayed="true"/, '$1displayed="false"')
    const wait = find(parse(xml).elements, "button", "Wait")
    expect(wait).toMatchObject({ visible: false, inViewport: false })
    expect(describeElement(wait)).toBe(`[e3] button "Wait" (hidden)`)
  })

  test("given visible-to-user=false in a dump, when parsed, then the element is hidden too", () => {
    const xml = fixture("dump-homee-welcome-login").replace(
      /(content-desc="Log In"[^>]*?)visible-to-user="true"/,
      '$1visible-to-user="false"'
    )
    expect(find(parse(xml).elements, "button", "Log In").visible).toBe(false)
  })

  test("given an element below the screen, when parsed, then it is visible but not in the viewport", () => {
    const xml = `<hierarchy rotation="0" width="1080" height="2000"><node class="android.widget.Button" text="Below" clickable="true" bounds="[0,2100][500,2200]"/></hierarchy>`
    expect(parse(xml).elements[0]).toMatchObject({ name: "Below", visible: true, inViewport: false })
  })

  test("given bounds, when read, then they become boxes; malformed or empty ones none", () => {
    expect(parseBounds("[28,807][1052,1346]")).toEqual({ x: 28, y: 807, width: 1024, height: 539 })
    expect(parseBounds("[0,0][0,0]")).toBeNull()
    expect(parseBounds("[10,10][5,20]")).toBeNull()
    expect(parseBounds("28,807,1052,1346")).toBeNull()
    expect(parseBounds("")).toBeNull()
  })
})

describe("ids within an episode", () => {
  test("given the same screen twice, when the ids are carried over, then every element keeps its id and none is issued", () => {
    const first = screen("appium-settings-main")
    const second = parse(fixture("appium-settings-main"), first)
    expect(second.elements.map((e) => e.id)).toEqual(first.elements.map((e) => e.id))
    expect(second.nextId).toBe(first.nextId)
  })

  test("given another screen in between, when the first comes back, then its elements get their old ids and the new ones fresh ids", () => {
    const settings = screen("appium-settings-main")
    const dialog = parse(fixture("appium-anr-dialog"), settings)
    expect(Number(dialog.elements[0]!.id.slice(1))).toBe(settings.nextId)
    const back = parse(fixture("appium-settings-main"), dialog)
    expect(back.elements.map((e) => e.id)).toEqual(settings.elements.map((e) => e.id))
  })

  test("given an element that moved (a scroll), when parsed again, then it gets a new id and the rest keep theirs", () => {
    const before = screen("appium-anr-dialog")
    const after = parse(fixture("appium-anr-dialog").replace("[72,1148][1008,1280]", "[72,1100][1008,1232]"), before)
    expect(find(after.elements, "button", "Wait").id).toBe("e4")
    expect(find(after.elements, "button", "Close app").id).toBe(find(before.elements, "button", "Close app").id)
  })

  test("given a recycled row showing other content in the same place, when parsed again, then it is a new id, not the old one", () => {
    const before = screen("appium-settings-main")
    const after = parse(fixture("appium-settings-main").replace(`text="Battery"`, `text="Bluetooth"`), before)
    const old = find(before.elements, "button", "Battery 100%")
    expect(after.elements.some((e) => e.id === old.id)).toBe(false)
    expect(find(after.elements, "button", "Bluetooth 100%").id).toMatch(/^e\d+$/)
  })

  test("given typing into a text field, when parsed again, then the field keeps its id", () => {
    const before = screen("dump-chat-edittext")
    const typed = fixture("dump-chat-edittext").replace(/text="" (resource-id="" class="android.widget.EditText")/, 'text="hello agent" $1')
    const after = parse(typed, before)
    const field = (p: ParsedPage) => p.elements.find((e) => e.role === "textbox")!
    expect(field(after).value).toBe("hello agent")
    expect(field(after).id).toBe(field(before).id)
  })
})

describe("passwords", () => {
  const login = `<?xml version="1.0"?><hierarchy rotation="0" width="1080" height="2000">
<node class="android.widget.EditText" resource-id="app:id/password" text="hunter2" password="true" clickable="true" enabled="true" bounds="[0,0][500,100]"/>
<node class="android.widget.EditText" resource-id="app:id/user_name" text="ada" password="false" clickable="true" enabled="true" bounds="[0,100][500,200]"/>
</hierarchy>`

  test("given a password field, when parsed, then its value is masked and its text is not shown", () => {
    const [password, user] = parse(login).elements
    expect(password).toMatchObject({ role: "textbox", name: "password", value: "•••••••", text: "", editable: true })
    expect(user).toMatchObject({ name: "user name", value: "ada" })
  })

  test("given a password field, when the hierarchy is stored, then the secret is not in it and the rest is", () => {
    const tree = parse(login).tree
    const stored = maskedHierarchy(tree)
    expect(stored).not.toContain("hunter2")
    expect(stored).toContain(`text="•••••••"`)
    expect(stored).toContain(`text="ada"`)
    // The stored form reads back as the same screen.
    expect(parse(stored).elements.map((e) => e.name)).toEqual(["password", "user name"])
  })
})

describe("roles and names", () => {
  const node = (className: string, over: Partial<UiNode> = {}): UiNode => ({
    index: 0,
    parent: null,
    children: [],
    className,
    packageName: "p",
    resourceId: "",
    text: "",
    contentDesc: "",
    hint: "",
    bounds: "[0,0][10,10]",
    box: { x: 0, y: 0, width: 10, height: 10 },
    clickable: false,
    longClickable: false,
    checkable: false,
    checked: false,
    enabled: true,
    focused: false,
    scrollable: false,
    password: false,
    displayed: true,
    showingHint: false,
    ...over
  })

  test("given the widget classes of the role table, when mapped, then each gets its documented role", () => {
    const cases: ReadonlyArray<readonly [UiNode, string, string?]> = [
      [node("android.widget.EditText"), "textbox"],
      [node("com.google.android.material.textfield.TextInputEditText"), "textbox"],
      [node("android.widget.AutoCompleteTextView"), "textbox"],
      [node("android.widget.Button", { clickable: true }), "button"],
      [node("android.widget.ImageButton"), "button"],
      [node("android.widget.CheckBox", { checkable: true }), "checkbox"],
      [node("android.widget.RadioButton", { checkable: true }), "radio"],
      [node("android.widget.Switch", { checkable: true }), "switch"],
      [node("android.widget.ToggleButton", { checkable: true }), "switch"],
      [node("android.widget.Spinner", { clickable: true }), "combobox"],
      [node("android.widget.SeekBar"), "slider"],
      [node("android.widget.CheckedTextView", { checkable: true }), "checkbox"],
      [node("com.google.android.material.tabs.TabLayout$TabView", { clickable: true }), "tab"],
      [node("android.widget.LinearLayout", { clickable: true }), "tab", "android.widget.TabWidget"],
      [node("android.widget.ListView", { scrollable: true }), "list"],
      [node("androidx.recyclerview.widget.RecyclerView", { scrollable: true }), "list"],
      [node("android.widget.ScrollView", { scrollable: true }), "scrollable"],
      [node("android.widget.TextView", { clickable: true }), "button"],
      [node("android.widget.ImageView", { clickable: true }), "button"],
      [node("android.widget.FrameLayout", { clickable: true }), "button"],
      [node("android.widget.TextView"), "text"],
      [node("android.widget.ImageView"), "image"],
      [node("android.widget.ProgressBar"), "progressbar"],
      [node("android.view.View"), "generic"]
    ]
    for (const [n, role, parent] of cases) {
      expect(`${n.className} → ${roleOf(n, parent ?? null)}`).toBe(`${n.className} → ${role}`)
    }
  })

  test("given resource ids, when made readable, then the last segment is words; obfuscated ids give nothing", () => {
    expect(readableId("android:id/aerr_close")).toBe("aerr close")
    expect(readableId("com.app:id/sendButton")).toBe("send button")
    expect(readableId("com.android.vending:id/0_resource_name_obfuscated")).toBe("")
    expect(readableId("")).toBe("")
  })

  test("given a hint attribute and no description, when parsed, then the hint names the field", () => {
    const xml = `<hierarchy rotation="0"><node class="android.widget.EditText" text="" hint="Search mail" clickable="true" bounds="[0,0][500,100]"/></hierarchy>`
    expect(parse(xml).elements[0]).toMatchObject({ role: "textbox", name: "Search mail", value: "" })
  })

  test("given Appium's showing-hint, when parsed, then the hint shown as text names the field and is not its value", () => {
    const xml = `<hierarchy rotation="0" width="600" height="200"><android.widget.EditText class="android.widget.EditText" text="Email" showing-hint="true" clickable="true" bounds="[0,0][500,100]"/></hierarchy>`
    expect(parse(xml).elements[0]).toMatchObject({ name: "Email", value: "" })
  })

  test("given a layout without anything to act on or read, when parsed, then it is left out", () => {
    const xml = `<hierarchy rotation="0"><node class="android.widget.FrameLayout" bounds="[0,0][100,100]"><node class="android.widget.TextView" text="Hi" bounds="[0,0][50,50]"/></node></hierarchy>`
    expect(parse(xml).elements.map((e) => e.name)).toEqual(["Hi"])
  })
})

describe("malformed page sources", () => {
  test("given a dump cut off mid-way, when read, then a PageSourceError says where, in one line", () => {
    const xml = fixture("dump-train-search-form")
    const error = (text: string) => {
      const r = readPageSource(text)
      return Result.isFailure(r) ? r.failure : null
    }
    const betweenTags = error(xml.slice(0, xml.lastIndexOf(">", 5000) + 1))
    expect(betweenTags?._tag).toBe("PageSourceError")
    expect(betweenTags?.message).toMatch(
      /^unreadable page source: malformed XML at line 1, column \d+: unexpected end of input: <node> is not closed$/
    )
    const insideTag = error(xml.slice(0, 5000))
    expect(insideTag?.message).toMatch(/^unreadable page source: malformed XML at line 1, column \d+: unterminated start tag <node$/)
  })

  test("given XML that is not a UI hierarchy, when read, then the error names the root it found", () => {
    const r = readPageSource(`<html><body/></html>`)
    expect(Result.isFailure(r) ? r.failure.message : "").toBe(
      "unreadable page source: the root element is <html>, not a UiAutomator <hierarchy>"
    )
  })

  test("given an empty hierarchy, when parsed, then there are no elements and no ids are used", () => {
    const page = parse(`<hierarchy rotation="1"/>`)
    expect(page.elements).toEqual([])
    expect(page.nextId).toBe(1)
    expect(page.tree.rotation).toBe(1)
    expect(elementsOf(page.tree, { nextId: 7, known: new Map() }).nextId).toBe(7)
  })
})
