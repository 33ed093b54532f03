/** The values a path must enter (data rules 7): given a demo and an instruction, then the values; given a trajectory, then those it left out. */
import { describe, expect, test } from "bun:test"
import type { Action } from "@core/events"
import { demoValues, valuesLeftOut } from "../mod.ts"
import type { LfAction } from "../LfTrajectory.ts"
import { act } from "./fixtures.ts"

const TX = `In the Checking account, add a transaction dated 11/24/2026: payee "Gull Point Pharmacy", category Health, payment 18.40.`
const t = (role: string, name: string | null) => ({ role, name, elementId: null, text: null })
const type = (name: string | null, text: string): Action => ({ kind: "type", target: t("textbox", name), text })
const demo: ReadonlyArray<Action> = [
  { kind: "click", target: t("link", "Checking 3,783.90") },
  { kind: "click", target: t("button", "Add New") },
  type(null, "11/24/2026"),
  type("Payee", "Gull Point Pharmacy"),
  type(null, "Health"),
  type(null, "18.40"),
  { kind: "key", key: "Enter" },
  { kind: "click", target: t("button", "Add") },
  { kind: "status", status: "complete" }
]

/** An LfAction of `kind` with these fields (the rest empty). */
const lf = (a: Partial<LfAction> & Pick<LfAction, "kind">): LfAction => act(a.kind, a)

describe("values a path must enter", () => {
  test("given a demo that typed four of the instruction's values, then those four; clicks and texts the instruction does not name are no values", () => {
    expect(demoValues(TX, demo)).toEqual(["11/24/2026", "Gull Point Pharmacy", "Health", "18.40"])
    expect(demoValues("Rename it", [type(null, "Harbor Family Budget")])).toEqual([])
  })

  const values = ["Gull Point Pharmacy", "Health", "18.40"]
  const cases: ReadonlyArray<[string, ReadonlyArray<LfAction>, ReadonlyArray<string>]> = [
    ["Add clicked on an empty row", [lf({ kind: "click", role: "button", name: "Add" })], values],
    [
      "every value typed, the payee in other case",
      [lf({ kind: "type", typed: "gull point pharmacy" }), lf({ kind: "type", typed: "Health" }), lf({ kind: "type", typed: "18.40" })],
      []
    ],
    [
      "the category picked from a list, the amount selected",
      [
        lf({ kind: "type", typed: "Gull Point Pharmacy" }),
        lf({ kind: "click", role: "option", name: "Health" }),
        lf({ kind: "select", value: "18.40" })
      ],
      []
    ],
    ["only the payee", [lf({ kind: "type", typed: "Gull Point Pharmacy" })], ["Health", "18.40"]]
  ]
  test.each(cases)("given %s, then the values left out", (_, actions, expected) => {
    expect(valuesLeftOut(values, actions)).toEqual([...expected])
  })
})
