import { describe, expect, test } from "bun:test"
import { carries, namedBySomeFill, namingSave } from "../NamedSave.ts"
import { act, trajectory } from "./fixtures.ts"
import { notesByMissingPage, notesDemo } from "./notes.ts"

describe("carries: a URL that names a value", () => {
  test.each([
    ["/#Visitor%20Log", "Visitor Log", true],
    ["/wiki/Visitor_Log", "Visitor Log", true],
    ["/search?q=visitor+log", "Visitor Log", true],
    ["/#Visitor%20Logbook", "Visitor Log", false],
    ["/#Draft%20of%20'New%20Tiddler'", "Visitor Log", false],
    ["/orders/12", "12", false],
    ["/#Go", "Go", false],
    [null, "Visitor Log", false]
  ] as const)("%s carries %s: %p", (url, value, want) => {
    expect(carries(url, value)).toBe(want)
  })
})

describe("namingSave: the save a fill named", () => {
  const saved = (typed: string, to: string, role = "button") =>
    trajectory("/new", [
      { action: act("type", { role: "textbox", name: "Title", typed }) },
      { action: act("click", { role, name: "Save" }), urlAfter: to }
    ])
  test.each([
    ["the title named the page the save led to", notesDemo, 1, 3],
    ["the text named nothing", notesDemo, 2, null],
    ["the button that opened the form is no fill", notesDemo, 0, null],
    ["a save to a minted id", saved("Visitor Log", "/notes/41"), 0, null],
    ["a link that left is no save", saved("Visitor Log", "/#Visitor%20Log", "link"), 0, null],
    ["a save to the typed name", saved("Visitor Log", "/#Visitor%20Log"), 0, 1]
  ] as const)("%s", (_, t, i, want) => {
    expect(namingSave(t, t.steps[i]!)?.index ?? null).toBe(want)
  })
  test("the save is named by some fill on its page; the other way's save names nothing it typed", () => {
    expect(notesDemo.steps.map((s) => namedBySomeFill(notesDemo, s))).toEqual([false, false, false, true, false])
    const way = notesByMissingPage()
    expect(way.steps.map((s) => namedBySomeFill(way, s))).toEqual([false, false, false, false, false])
  })
})
