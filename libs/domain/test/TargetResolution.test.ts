/**
 * Resolving a step file's target on a page's elements: exact role / name / text first,
 * visible and enabled before the rest, `nth` among them; a unique "contains" match as a
 * fallback; otherwise a problem that names the closest elements on the page.
 */
import { describe, expect, test } from "bun:test"
import { closestElements, describeTarget, nameSimilarity, resolveTarget } from "../mod.ts"
import type { ResolvableElement, TargetDescription } from "../mod.ts"

let next = 0
const el = (role: string, name: string, more: Partial<ResolvableElement> = {}): ResolvableElement => ({
  id: `e${next++}`,
  role,
  name,
  text: name,
  visible: true,
  enabled: true,
  ...more
})

const page: ReadonlyArray<ResolvableElement> = [
  el("link", "Home"),
  el("searchbox", "Search products", { text: "" }),
  el("link", "GettingStarted"),
  el("button", "get started"),
  el("button", "Add to cart"),
  el("button", "Add to wish list"),
  el("link", "Read more", { visible: false }),
  el("link", "Read more", { enabled: false }),
  el("link", "Read  More"),
  el("link", "Read more"),
  el("link", "Harbor Modern Trekking Poles"),
  el("textbox", "Full name (required)", { text: "" }),
  el("link", "", { text: "Icon only" }),
  el("button", "", { text: "" })
]
const id = (name: string, nth = 0): string => page.filter((e) => e.name === name)[nth]!.id

describe("resolveTarget", () => {
  const found: ReadonlyArray<[string, TargetDescription, string, "exact" | "contains"]> = [
    ["role and name, exactly", { role: "link", name: "Home" }, id("Home"), "exact"],
    [
      "role case-insensitive, name white space and case normalised",
      { role: "LINK", name: "  harbor modern\ttrekking POLES " },
      id("Harbor Modern Trekking Poles"),
      "exact"
    ],
    ["name alone", { name: "Add to cart" }, id("Add to cart"), "exact"],
    ["text alone", { text: "Icon only" }, page[12]!.id, "exact"],
    ["role alone: the first in document order", { role: "searchbox" }, id("Search products"), "exact"],
    [
      "several matches: visible and enabled first (not the hidden or disabled one)",
      { role: "link", name: "Read more" },
      id("Read  More"),
      "exact"
    ],
    ["nth 1 among them", { role: "link", name: "read more", nth: 1 }, id("Read more", 2), "exact"],
    [
      "nth past the usable ones reaches the hidden and disabled in document order",
      { role: "link", name: "read more", nth: 2 },
      id("Read more", 0),
      "exact"
    ],
    ["a unique fragment: contains", { role: "textbox", name: "Full name" }, id("Full name (required)"), "contains"],
    ["a unique fragment of a name within a role", { role: "button", name: "wish" }, id("Add to wish list"), "contains"]
  ]
  for (const [what, target, want, match] of found) {
    test(`finds ${what}`, () => {
      const r = resolveTarget(target, page)
      expect("element" in r ? { id: r.element.id, match: r.match } : r).toEqual({ id: want, match })
    })
  }

  const problems: ReadonlyArray<[string, TargetDescription, string]> = [
    [
      "no match lists the closest names, best first",
      { role: "link", name: "Getting Started" },
      'no element matches; closest on the page: link "GettingStarted", button "get started", link "Read more", link "Read More", link "Harbor Modern Trekking Poles"'
    ],
    [
      "a role that exists nowhere: the closest roles",
      { role: "checkbox" },
      'no element matches; closest on the page: textbox "Full name (required)", searchbox "Search products", link "Home", link "GettingStarted", button "get started"'
    ],
    [
      "an ambiguous fragment is refused, not guessed",
      { role: "button", name: "Add" },
      'no element matches exactly and 2 contain it (give the exact name); closest on the page: button "Add to cart", button "Add to wish list", button "get started", link "Read more", link "Read More"'
    ],
    [
      "nth past every match",
      { role: "button", name: "Add to cart", nth: 1 },
      "only 1 element match, nth 1 asks for one more (nth counts from 0)"
    ],
    [
      "nth on a unique fragment",
      { role: "textbox", name: "Full", nth: 1 },
      "no element matches exactly and only 1 contains it, nth 1 asks for more (nth counts from 0)"
    ],
    ["an empty page", { role: "link", name: "Home" }, "no element matches; the page has no named elements"],
    [
      "no name where every element of the role has one: the unnamed elements and the role's come closest",
      { role: "searchbox", name: null },
      'no element matches; closest on the page: link "Icon only", searchbox "Search products", textbox "Full name (required)", button "get started", button "Add to cart"'
    ]
  ]
  for (const [what, target, want] of problems) {
    test(`refuses ${what}`, () => {
      const r = resolveTarget(target, what === "an empty page" ? [] : page)
      expect("problem" in r ? r.problem : r).toBe(want)
    })
  }

  test("a problem is one line even when the page's names hold line breaks", () => {
    const r = resolveTarget({ name: "Save" }, [el("button", "Sav\ne\u2028now")])
    expect("problem" in r && r.problem).toBe('no element matches; closest on the page: button "Sav e now"')
  })
})

describe("resolveTarget: the element that has no name (name null)", () => {
  const form: ReadonlyArray<ResolvableElement> = [
    el("textbox", "Title", { text: "" }),
    el("textbox", "", { text: "" }),
    el("button", "Save"),
    el("textbox", "  ", { text: "", visible: false })
  ]
  const twoUnnamed = [...form.slice(0, 3), el("textbox", "", { text: "" })]
  const cases: ReadonlyArray<[string, TargetDescription, ReadonlyArray<ResolvableElement>, string]> = [
    ["one unnamed textbox beside a named one: that one", { role: "textbox", name: null }, form.slice(0, 3), form[1]!.id],
    ["the unnamed one among hidden unnamed ones: nth picks, visible first", { role: "textbox", name: null, nth: 0 }, form, form[1]!.id],
    ["nth 1 among two unnamed", { role: "textbox", name: null, nth: 1 }, twoUnnamed, twoUnnamed[3]!.id],
    [
      "two unnamed without nth: refused, in one line",
      { role: "textbox", name: null },
      twoUnnamed,
      '2 elements match textbox with no name: say which with "nth" (from 0: visible and enabled first, then page order)'
    ],
    ["a role alone still takes the first textbox, named or not", { role: "textbox" }, form, form[0]!.id]
  ]
  for (const [what, target, elements, want] of cases) {
    test(what, () => {
      const r = resolveTarget(target, elements)
      expect("element" in r ? r.element.id : r.problem).toBe(want)
    })
  }
})

describe("closestElements", () => {
  test("at most five, unnamed elements left out, hidden ones only when nothing is visible", () => {
    expect(closestElements({ name: "zzz" }, page)).toHaveLength(5)
    expect(closestElements({ role: "button" }, [el("button", "")])).toEqual([])
    expect(closestElements({ name: "x" }, [el("link", "Hidden", { visible: false }), el("link", "Shown")])).toEqual(['link "Shown"'])
    expect(closestElements({ name: "x" }, [el("link", "Hidden", { visible: false })])).toEqual(['link "Hidden"'])
  })
})

describe("nameSimilarity and describeTarget", () => {
  const sims: ReadonlyArray<[string, string, number]> = [
    ["Save", " save ", 1],
    ["abc", "xyz", 0],
    ["Getting Started", "GettingStarted", 1 - 1 / 15],
    ["Add", "Add to wish list", 0.5 + (0.5 * 3) / 16]
  ]
  for (const [a, b, want] of sims)
    test(`${JSON.stringify(a)} ~ ${JSON.stringify(b)} = ${want.toFixed(3)}`, () => expect(nameSimilarity(a, b)).toBeCloseTo(want, 6))

  const described: ReadonlyArray<[TargetDescription, string]> = [
    [{ role: "link", name: "Getting Started" }, 'link "Getting Started"'],
    [{ text: "Add" }, 'element with text "Add"'],
    [{ name: "Save", nth: 1 }, '"Save" nth 1'],
    [{ role: "button", text: "OK" }, 'button with text "OK"'],
    [{ role: "textbox", name: null, nth: 1 }, "textbox with no name nth 1"]
  ]
  for (const [target, want] of described) test(`describes ${want}`, () => expect(describeTarget(target)).toBe(want))
})
