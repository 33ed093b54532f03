/**
 * A transaction entered in a register whose cells are editors with no name, as a demo did it
 * and as runs that lost a Tab did: the date, Tab, the payee (the one named cell), Tab, Tab,
 * the category, Tab, the payment, "Add". The account's link in the sidebar shows its balance.
 * Shared by the MovedFigures tests and the synthesis rules' cases.
 */
import type { LfElement } from "../LfTrajectory.ts"
import { act, el, trajectory } from "./fixtures.ts"

const REGISTER = "/accounts/2f1c"
const sidebar = (balance: string): ReadonlyArray<LfElement> => [el("link", `Checking ${balance}`), el("link", "Savings 5,012.56")]
const cell = (balance: string, value = "") => [...sidebar(balance), el("textbox", "", { value }), el("button", "Add")]

/**
 * Where the category and the amount went: the demo's columns, the amount as a deposit (a
 * Tab pressed twice), or no amount (a Tab dropped: the category went into the notes).
 * `from` is the balance the account started at.
 */
export const ledgerRun = (options: { readonly amount?: "payment" | "deposit" | "none"; readonly from?: [string, number] } = {}) => {
  const [start, value] = options.from ?? ["3,783.90", 3783.9]
  const moved = options.amount === "deposit" ? 18.4 : options.amount === "none" ? 0 : -18.4
  const end = (value + moved).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })
  return trajectory(
    "/budget",
    [
      {
        action: act("click", { role: "link", name: `Checking ${start}` }),
        urlAfter: REGISTER,
        elements: [...sidebar(start), el("button", "Add New")]
      },
      { action: act("click", { role: "button", name: "Add New" }), elements: cell(start) },
      { action: act("type", { role: "textbox", name: "", typed: "11/24/2026" }), elements: cell(start, "11/24/2026") },
      { action: act("key", { key: "Tab" }), elements: [...cell(start), el("textbox", "Payee", { value: "" })] },
      { action: act("type", { role: "textbox", name: "Payee", typed: "Gull Point Pharmacy" }), elements: cell(start) },
      { action: act("key", { key: "Tab" }), elements: cell(start) },
      { action: act("key", { key: "Tab" }), elements: cell(start) },
      { action: act("type", { role: "textbox", name: "", typed: "Health" }), elements: cell(start, "Health") },
      { action: act("key", { key: "Tab" }), elements: cell(start) },
      { action: act("type", { role: "textbox", name: "", typed: "18.40" }), elements: cell(start, "18.40") },
      { action: act("click", { role: "button", name: "Add", text: "Add" }), elements: cell(end, "11/24/2026") },
      { action: act("status", { status: "complete" }), elements: cell(end, "11/24/2026") }
    ],
    sidebar(start)
  )
}

/** The demo: the payment in its column. Step 10 is "Add". */
export const ledgerDemo = ledgerRun()
