import { describe, expect, test } from "bun:test"
import { firstLine, joinLines, messageOf, oneLine } from "../Text.ts"

describe("one-line text", () => {
  test.each([
    ["spaces and breaks collapse", "a  b\n\t c ", Infinity, "a b c"],
    ["cut after max with an ellipsis", "abcdef", 3, "abc…"],
    ["exactly max is kept", "abc", 3, "abc"],
    ["empty stays empty", " \n ", 10, ""]
  ] as const)("oneLine: %s", (_, text, max, expected) => {
    expect(oneLine(text, max)).toBe(expected)
  })

  test.each([
    ["an Error's message", new Error("boom"), "boom"],
    ["anything with a message", { message: 42 }, "42"],
    ["a string as itself", "plain", "plain"],
    ["other values as strings", 7, "7"]
  ] as const)("messageOf: %s", (_, cause, expected) => {
    expect(messageOf(cause)).toBe(expected)
  })

  test("firstLine keeps the text before the first break; joinLines keeps every non-empty line", () => {
    expect(firstLine("one\ntwo")).toBe("one")
    expect(firstLine("")).toBe("")
    expect(joinLines(" one \r\n\n two\n")).toBe("one; two")
  })
})
