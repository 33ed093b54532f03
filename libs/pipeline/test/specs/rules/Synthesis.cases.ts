/**
 * The synthesis, retrieval and LF-guide rules' cases: the synthesizer and key steps on small
 * demos (from SynthesisVersions.test.ts and EditsByEffect.test.ts), the retrieval policy on
 * a shop's price question (Reading.test.ts), and the guide a version shows.
 *
 * @example
 * synthesis.readsValues // { run, before: false, after: true }
 */
import {
  identifyKeySteps,
  keyStepOptionsOf,
  lfApiGuide,
  nativeLabelFunction,
  RETRIEVAL,
  rulesAt,
  synthesisRulesAt,
  synthesizeCandidates
} from "@core/domain"
import type { LfTrajectory } from "@core/domain"
import type { Action } from "@core/events"
import { retrievalAction, trainRetrieval } from "@core/policy"
import { prng } from "@core/engine"
import { act, el, trajectory as lfTrajectory } from "../../../../domain/test/fixtures.ts"
import { cartDemo, cartWay } from "../../../../domain/test/cart.ts"
import { flightsDemo, flightsScan } from "../../../../domain/test/flights.ts"
import { tagBySuggestion, tagDemo } from "../../../../domain/test/tags.ts"
import { notesByMissingPage, notesDemo } from "../../../../domain/test/notes.ts"
import { ledgerDemo, ledgerRun } from "../../../../domain/test/ledger.ts"
import { at, episode, act as shopAct, site } from "../../../../policy/test/retrieval/shop.ts"
import type { Table } from "./Cases.ts"
import { seedOf } from "./Cases.ts"

const holds = (code: string, t: LfTrajectory): boolean => (nativeLabelFunction(code)(t) as number) >= 0
const answerDemo = (answer: string) =>
  lfTrajectory("/wiki/#Welcome", [
    { action: act("click", { role: "link", name: "Workshop" }), urlAfter: "/wiki/#Workshop", elements: [el("heading", "Workshop")] },
    { action: act("answer", { answer }) }
  ])
/** Does the LF a version infers from the demo's answer hold on the given answer? */
const answerHolds = (demo: string, given: string) => (v: string) => {
  const t = answerDemo(demo)
  return holds(synthesizeCandidates(t, identifyKeySteps(t).at(-1)!, synthesisRulesAt(v))[0]!.code, answerDemo(given))
}
/** Does the first LF a version infers for the demo's step `stepIndex` hold on each trajectory? */
const stepHolds =
  (demo: LfTrajectory, stepIndex: number, ways: () => ReadonlyArray<LfTrajectory>) =>
  (v: string): Array<boolean> => {
    const rules = synthesisRulesAt(v)
    const k = identifyKeySteps(demo, keyStepOptionsOf(rules)).find((x) => x.stepIndex === stepIndex)!
    const code = synthesizeCandidates(demo, k, rules)[0]!.code
    return ways().map((t) => holds(code, t))
  }
const keySteps = (t: LfTrajectory, v: string) => identifyKeySteps(t, keyStepOptionsOf(synthesisRulesAt(v))).map((k) => k.stepIndex)

export const synthesis: Table["synthesis"] = {
  wholePhraseAnswers: { run: answerHolds("Workshop", "the Workshop"), before: false, after: true },
  unchosenStartClicks: {
    run: (v) => {
      const created = (before: ReadonlyArray<{ action: ReturnType<typeof act>; urlAfter?: string }>) =>
        lfTrajectory("/#Welcome", [
          ...before,
          {
            action: act("click", { role: "button", name: "new tiddler" }),
            urlAfter: "/#Draft",
            elements: [el("textbox", "Title", { value: "" })]
          },
          { action: act("type", { role: "textbox", name: "Title", typed: "Fuel" }), elements: [el("textbox", "Title", { value: "Fuel" })] }
        ])
      const demo = created([])
      const code = synthesizeCandidates(demo, identifyKeySteps(demo)[0]!, synthesisRulesAt(v))[0]!.code
      return holds(code, created([{ action: act("click", { role: "link", name: "Logs" }), urlAfter: "/#Logs" }]))
    },
    before: false,
    after: true
  },
  readsValues: { run: answerHolds("It costs $117.49.", "$117.49"), before: false, after: true },
  readsBareValues: { run: answerHolds("14:25", "Flight BW554 departs at 14:25."), before: false, after: true },
  dropsInPageLinks: {
    run: (v) => {
      const page = [el("link", "Skip to content"), el("combobox", "Sort by", { value: "new" }), el("button", "Apply")]
      const t = lfTrajectory(
        "/forum/b/cycling",
        [
          { action: act("click", { role: "link", name: "Skip to content" }), elements: page },
          { action: act("select", { role: "combobox", name: "Sort by", value: "top" }), elements: page },
          { action: act("status", { status: "complete" }) }
        ],
        page
      )
      return keySteps(t, v).includes(0)
    },
    before: true,
    after: false
  },
  judgesEditsByEffect: {
    run: (v) => {
      const editor = (value: string) => [el("link", "Cancel"), el("textbox", "Body", { value }), el("button", "Save")]
      const body = { role: "textbox", name: "Body" }
      const t = lfTrajectory("/wiki/Notes", [
        { action: act("click", { role: "link", name: "Edit" }), urlAfter: "/wiki/Notes/edit", elements: editor("Owner: Bob") },
        { action: act("click", body), elements: editor("Owner: Bob") },
        { action: act("key", { key: "ArrowDown" }), elements: editor("Owner: Bob") },
        { action: act("key", { key: "Shift+PageDown" }), elements: editor("Owner: Bob") },
        { action: act("type", { ...body, typed: "Reviewed", mode: "insert" }), elements: editor("Owner: Bob Reviewed") },
        { action: act("click", { role: "button", name: "Save" }), urlAfter: "/wiki/Notes", elements: [el("article", "Notes")] },
        { action: act("status", { status: "complete" }) }
      ])
      // A selection key that changed nothing made the click before it a step; judged by effect, the edit is one.
      return keySteps(t, v).includes(1)
    },
    before: true,
    after: false
  },
  submitsByTypedText: {
    run: (v) => {
      const searched = (urlAfter: string) =>
        lfTrajectory("/index.php/Main_Page", [
          { action: act("type", { role: "searchbox", name: "Search", typed: "Curlew", submit: true }), urlAfter },
          { action: act("answer", { answer: "160 psi" }) }
        ])
      const demo = searched("/index.php?search=Curlew&title=Special%3ASearch&fulltext=Search")
      const code = synthesizeCandidates(demo, identifyKeySteps(demo)[0]!, synthesisRulesAt(v))[0]!.code
      return holds(code, searched("/index.php?search=Curlew&title=Special%3ASearch&go=Go"))
    },
    before: false,
    after: true
  },
  tellsNamelessFieldsApart: {
    run: (v) => {
      const row = lfTrajectory(
        "/accounts/checking",
        ["11/24/2026", "Health", "18.40"].map((text) => ({
          action: act("type", { role: "textbox", name: "", typed: text }),
          elements: [el("textbox", "", { value: text })]
        }))
      )
      return keySteps(row, v).length
    },
    before: 1,
    after: 3
  },
  generalisesMintedUuids: {
    run: (v) => {
      const created = (uuid: string) =>
        lfTrajectory("/budget", [
          { action: act("click", { role: "button", name: "Create" }), urlAfter: `/accounts/${uuid}` },
          { action: act("status", { status: "complete" }) }
        ])
      const demo = created("0fa3b9c1-5d27-4e6b-bf38-cb7f9e1fe0a2")
      const other = created("7d2e01aa-93c4-4f1b-a2de-0b5c8e7f6a13")
      return identifyKeySteps(demo).every((k) => holds(synthesizeCandidates(demo, k, synthesisRulesAt(v))[0]!.code, other))
    },
    before: false,
    after: true
  },
  submitsWhenPageStays: {
    run: (v) => {
      const named = (submit: boolean) =>
        lfTrajectory("/budget", [
          { action: act("click", { role: "button", name: "Add group" }), elements: [el("textbox", "New group name", { value: "" })] },
          {
            action: act("type", { role: "textbox", name: "New group name", typed: "Pets", submit }),
            elements: [el("textbox", "New group name", { value: "Pets" })]
          },
          { action: act("status", { status: "complete" }) }
        ])
      const demo = named(true)
      const rules = synthesisRulesAt(v)
      const k = identifyKeySteps(demo, keyStepOptionsOf(rules)).find((x) => demo.steps[x.stepIndex]!.action.kind === "type")!
      return holds(synthesizeCandidates(demo, k, rules)[0]!.code, named(false))
    },
    before: true,
    after: false
  },
  formContextByFields: {
    // Publish pressed on /submit?board=books, its Board select reading "books"; then the header's form, its board chosen.
    run: (v) => {
      const form = (board: string, title: string) => [el("combobox", "Board", { value: board }), el("textbox", "Title", { value: title })]
      const publish = (board: string) => [
        { action: act("type", { role: "textbox", name: "Title", typed: "Hi" }), elements: form(board, "Hi") },
        { action: act("click", { role: "button", name: "Publish post" }), urlAfter: "/post/9?m=created", elements: [] },
        { action: act("status", { status: "complete" }) }
      ]
      const demo = lfTrajectory("/", [
        { action: act("click", { role: "link", name: "Books" }), urlAfter: "/b/books", elements: [] },
        {
          action: act("click", { role: "link", name: "Create a post in Books" }),
          urlAfter: "/submit?board=books",
          elements: form("books", "")
        },
        ...publish("books")
      ])
      const header = (board: string) =>
        lfTrajectory("/", [
          { action: act("click", { role: "link", name: "Create post" }), urlAfter: "/submit", elements: form("", "") },
          { action: act("select", { role: "combobox", name: "Board", value: board }), elements: form(board, "") },
          ...publish(board)
        ])
      const rules = synthesisRulesAt(v)
      const k = identifyKeySteps(demo, keyStepOptionsOf(rules)).find((x) => demo.steps[x.stepIndex]!.action.name === "Publish post")!
      const code = synthesizeCandidates(demo, k, rules)[0]!.code
      return [holds(code, demo), holds(code, header("books")), holds(code, header("art"))]
    },
    before: [true, false, false],
    after: [true, true, false]
  },
  typedFieldsByState: {
    // A name typed into a booking form; then the same form filled by a "Fill in from saved traveller" button, or with another name.
    run: (v) => {
      const name = (value: string) => [el("textbox", "Full name", { value })]
      const booking = (fill: { action: ReturnType<typeof act>; urlAfter?: string; elements: ReturnType<typeof name> }) =>
        lfTrajectory("/booking/2", [
          fill,
          { action: act("click", { role: "button", name: "Continue" }), urlAfter: "/booking/3", elements: [] },
          { action: act("status", { status: "complete" }) }
        ])
      const typed = (value: string) =>
        booking({ action: act("type", { role: "textbox", name: "Full name", typed: value }), elements: name(value) })
      const prefilled = (value: string) =>
        booking({
          action: act("click", { role: "button", name: "Fill in from saved traveller" }),
          urlAfter: "/booking/2?m=prefilled",
          elements: name(value)
        })
      const demo = typed("Quinn Larsen")
      const rules = synthesisRulesAt(v)
      const k = identifyKeySteps(demo, keyStepOptionsOf(rules)).find((x) => demo.steps[x.stepIndex]!.action.kind === "type")!
      const code = synthesizeCandidates(demo, k, rules)[0]!.code
      return [
        holds(code, demo),
        holds(code, prefilled("Quinn Larsen")),
        holds(code, prefilled("Noor Alvarez")),
        holds(code, typed("Noor Alvarez"))
      ]
    },
    before: [true, false, false, false],
    after: [true, true, false, false]
  },
  editsOnce: {
    // A line appended to a body and saved; then the same line typed twice before saving.
    run: (v) => {
      const editor = (value: string) => [el("link", "Cancel"), el("textbox", "Body", { value }), el("button", "Save")]
      const body = { role: "textbox", name: "Body" }
      const session = (times: number) =>
        lfTrajectory("/wiki/Log", [
          { action: act("click", { role: "link", name: "Edit" }), urlAfter: "/wiki/Log/edit", elements: editor("Pump checked") },
          { action: act("click", body), elements: editor("Pump checked") },
          ...Array.from({ length: times }, (_, i) => ({
            action: act("type", { ...body, typed: "Filter changed", mode: "insert" }),
            elements: editor(`Pump checked${" Filter changed".repeat(i + 1)}`)
          })),
          { action: act("click", { role: "button", name: "Save" }), urlAfter: "/wiki/Log", elements: [el("article", "Log")] },
          { action: act("status", { status: "complete" }) }
        ])
      const demo = session(1)
      return stepHolds(demo, 2, () => [demo, session(2)])(v)
    },
    before: [true, true],
    after: [true, false]
  },
  sharedNamesByEdit: {
    // A tiddler's fields in its editor, each value box named "field value": the status changed from running to offline;
    // then "offline" typed into the new field's box instead, the status left as it was.
    run: (v) => {
      const fields = (status: string, added: string) => [
        el("textbox", "field value", { value: status }),
        el("textbox", "field name", { value: "" }),
        el("textbox", "field value", { value: added }),
        el("button", "Confirm changes to this tiddler")
      ]
      const edit = (after: ReturnType<typeof fields>) =>
        lfTrajectory("/#Generator", [
          { action: act("click", { role: "button", name: "Edit this tiddler" }), elements: fields("running", "") },
          { action: act("type", { role: "textbox", name: "field value", typed: "offline" }), elements: after },
          {
            action: act("click", { role: "button", name: "Confirm changes to this tiddler" }),
            elements: [el("button", "Edit this tiddler")]
          },
          { action: act("status", { status: "complete" }) }
        ])
      const demo = edit(fields("offline", ""))
      return stepHolds(demo, 1, () => [demo, edit(fields("running", "offline"))])(v)
    },
    before: [true, true],
    after: [true, false]
  },
  sharedNamesByNeighbour: {
    // The same field table, each row's box before its "remove field", the new field's before "add": the status changed;
    // then the status removed and added again as offline; then removed, "offline" typed into the new box and never added.
    run: (v) => {
      const fields = (rows: ReadonlyArray<string>, name: string, added: string) => [
        ...rows.flatMap((value) => [el("textbox", "field value", { value }), el("button", "remove field")]),
        el("textbox", "field name", { value: name }),
        el("textbox", "field value", { value: added }),
        el("button", "add"),
        el("button", "Confirm changes to this tiddler")
      ]
      const type = (name: string, typed: string, after: ReturnType<typeof fields>) => ({
        action: act("type", { role: "textbox", name, typed }),
        elements: after
      })
      const click = (name: string, after: ReturnType<typeof fields>) => ({
        action: act("click", { role: "button", name }),
        elements: after
      })
      const edit = (steps: ReadonlyArray<ReturnType<typeof click>>) =>
        lfTrajectory("/#Generator", [
          click("Edit this tiddler", fields(["running"], "", "")),
          ...steps,
          click("Confirm changes to this tiddler", []),
          { action: act("status", { status: "complete" }), elements: [] }
        ])
      const demo = edit([type("field value", "offline", fields(["offline"], "", ""))])
      const readded = edit([
        click("remove field", fields([], "", "")),
        type("field name", "status", fields([], "status", "")),
        type("field value", "offline", fields([], "status", "offline")),
        click("add", fields(["offline"], "", ""))
      ])
      const neverAdded = edit([
        click("remove field", fields([], "", "")),
        type("field value", "offline", fields([], "", "offline")),
        click("add", fields([], "", "offline"))
      ])
      const rules = synthesisRulesAt(v)
      const k = identifyKeySteps(demo, keyStepOptionsOf(rules)).find((x) => demo.steps[x.stepIndex]!.action.kind === "type")!
      const code = synthesizeCandidates(demo, k, rules)[0]!.code
      return [demo, readded, neverAdded].map((t) => holds(code, t))
    },
    before: [true, true, true],
    after: [true, true, false]
  },
  echoedValues: {
    // 3 typed into "Quantity" on the product's page, shown later in the cart's "Quantity for Red Kettle";
    // then a way that set 3 in the cart and saved it, and one that typed it there and never saved.
    run: stepHolds(cartDemo, 0, () => [cartDemo, cartWay(), cartWay({ saved: false })]),
    before: [true, false, false],
    after: [true, true, false]
  },
  survivedFilters: {
    // "Select flight BW810" pressed on results a button filtered to nonstop and sorted: on the unfiltered results,
    // then another flight there, then BW810 on another date's results, which the path alone let through.
    run: stepHolds(flightsDemo, 4, () => [flightsDemo, flightsScan(), flightsScan("PL420"), flightsScan("BW810", "2029-07-26")]),
    before: [true, true, false, true],
    after: [true, true, false, false]
  },
  enterCommits: {
    // "Urgent" typed into "tag name" and "add" pressed; then a suggestion taken by Enter, another suggestion, an Enter that took nothing.
    run: stepHolds(tagDemo, 1, () => [
      tagDemo,
      tagBySuggestion(),
      tagBySuggestion({ picked: "Urgency" }),
      tagBySuggestion({ taken: false })
    ]),
    before: [true, false, false, false],
    after: [true, true, false, false]
  },
  savesByName: {
    // The title's and the save's LFs on the record opened at its missing page, and on another record opened so.
    run: (v) => {
      const ways = [notesByMissingPage(), notesByMissingPage({ title: "Guest Log" })]
      const [title, save] = [stepHolds(notesDemo, 1, () => ways)(v), stepHolds(notesDemo, 3, () => ways)(v)]
      return ways.flatMap((_, i) => [title[i]!, save[i]!])
    },
    before: [false, false, false, false],
    after: [true, true, false, false]
  },
  movedFigures: {
    // The register's "Add" on the demo, on the amount entered as a deposit, and on no amount.
    run: stepHolds(ledgerDemo, 10, () => [ledgerDemo, ledgerRun({ amount: "deposit" }), ledgerRun({ amount: "none" })]),
    before: [true, true, true],
    after: [true, false, false]
  }
}

export const retrieval: Table["retrieval"] = {
  readsPage: {
    run: (v) => {
      const s = site("r-")
      const priceOf = (name: string, price: string) =>
        episode(`What is the price of ${name}?`, [
          [s.home(), shopAct.type("searchbox", "Search products", name, true)],
          [s.search(name, [name]), shopAct.click("link", name)],
          [s.product(name), shopAct.answer(`It costs ${price}.`)]
        ])
      const model = trainRetrieval([...priceOf("Acme Compact Kettle", "$24.99"), ...priceOf("Lumen Classic Headphones", "$89.00")])
      const product = "Harbor Pocket Atlas"
      const history: ReadonlyArray<Action> = [
        { kind: "type", target: { role: "searchbox", name: "Search products", elementId: "x", text: null }, text: product, submit: true },
        { kind: "click", target: { role: "link", name: product, elementId: "y", text: product } }
      ]
      const live = site("l-", "http://127.0.0.1:5300")
      const page = `- main:\n  - heading "${product}" [level=1]\n  - paragraph: $13.50`
      const rules = rulesAt(RETRIEVAL, v)
      return retrievalAction(model, at(`What is the price of ${product}?`, live.product(product), history), prng(seedOf(0)), {
        rules,
        page
      })
    },
    // Version 1 copies the recorded answer: another product's price, which its own check refuses.
    before: null,
    after: { kind: "answer", text: "It costs $13.50." }
  }
}

export const lfGuide: Table["lfGuide"] = {
  typesAtCursor: { run: (v) => lfApiGuide(v).includes('mode: "insert"'), before: false, after: true }
}
