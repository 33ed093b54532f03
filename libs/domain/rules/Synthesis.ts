/**
 * The label-function synthesizer's versions (`infer.synthesis`), each rule named with the
 * version that brought it on: a run keeps the version it recorded, so its replays infer the
 * same code.
 *
 * @example
 * const rules = synthesisRulesAt(config["infer.synthesis"]) // version 1's for runs before versions
 * if (rules.submitsByTypedText) pattern = typedUrlPattern(url, typed)
 */
import { axis, rulesAt, type RuleSet, type VersionOf } from "./Versioned.ts"

export const SYNTHESIS = axis("synthesis", "infer.synthesis", ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"], "12", {
  /** An answer holds when it contains the demo's as a whole phrase ("the Workshop" for "Workshop"). */
  wholePhraseAnswers: "2",
  /** A click that left the untouched start page is not tied to that page: the task chose it. */
  unchosenStartClicks: "2",
  /** A sentence that reports one value holds for any answer reporting the same value. */
  readsValues: "3",
  /** A bare value that is no plain number holds when reported among other words. */
  readsBareValues: "4",
  /** Key steps leave out a link that neither left the page nor changed it. */
  dropsInPageLinks: "4",
  /** An edit in place is judged by the field's content after it (FieldEdits.ts). */
  judgesEditsByEffect: "5",
  /**
   * A typed-and-submitted step's page after it is judged by the query parameters that carry
   * the typed text (`search=Curlew`), not by those the way of submitting added (`go=Go` after
   * Enter beside a suggestion list, `fulltext=Search` without one).
   */
  submitsByTypedText: "6",
  /**
   * Typing into a field without a name is not overwritten by typing into another nameless
   * field (KeySteps.ts, `namelessApart`): a table's cells edited in turn are different fields.
   */
  tellsNamelessFieldsApart: "7",
  /**
   * A UUID in the URL a button led to is generalised whole (`/accounts/<any uuid>`): the
   * button minted it, and before version 6 only its digits were, so its letters tied the LF
   * to the demo's own new record.
   */
  generalisesMintedUuids: "7",
  /**
   * A text typed and submitted on a page that stayed (a new group's name and Enter) is checked
   * with its submit: the field showed the text before the Enter too, so without it a run that
   * typed the name and never pressed Enter passed, and nothing was created.
   */
  submitsWhenPageStays: "7",
  /**
   * A control pressed on a page whose query is its context (`/submit?board=books`) is tied to
   * the fields that show those values (the Board select reading "books"), not to the query:
   * the same form reached another way (a header's "Create post", the board chosen) is the
   * same key step. A query naming the parameter with another value still refuses it.
   */
  formContextByFields: "8",
  /**
   * A value filled into a form field also holds when the field on that page shows it,
   * however it came there (a saved traveller filled in by a button, a suggestion picked):
   * the field's state is what the form sends.
   */
  typedFieldsByState: "8",
  /**
   * An edit in place holds only if the field's last value on its page keeps the inserted
   * text as often as the edit left it: the same text inserted twice (an append typed again)
   * is not the edit, which a check of the step alone accepted.
   */
  editsOnce: "9",
  /**
   * A value typed into a field whose role and name another field on the page shares (a
   * table of fields, each value box named "field value") is judged by the edit it made:
   * the field that held the old value holds the new. By the name alone, typing it into the
   * other field (a new field's box) passed for the change.
   */
  sharedNamesByEdit: "9",
  /**
   * A filled field also holds where the app shows its value afterwards (Echo.ts): a page the
   * demo loaded later showed a field of its role named for it and the item ("Quantity for
   * Acme Classic Puzzle Book") holding the value. A quantity set in the cart is the quantity
   * typed on the product's page.
   */
  echoedValues: "10",
  /**
   * A control pressed on a list a button filtered is held to the list without the filters it
   * survived (SurvivedFilters.ts): a flight selected on results filtered to nonstop and
   * sorted by price, whose button the unfiltered results already showed, holds on those
   * results, its route and date included. Version 9 held it to the page's path alone (a
   * button led there), which let the same flight's button on another date's results pass.
   */
  survivedFilters: "10",
  /**
   * A button that took the value from the field typed just before it (the field emptied: a
   * tag's "add") also holds as Enter pressed in that field while it held the value, which
   * emptied it too (Committed.ts): a suggestion picked with the arrows and Enter adds the
   * same tag.
   */
  enterCommits: "11",
  /**
   * A save that led to a page the form's typing named (`/#Visitor%20Log` after "Visitor Log"
   * was typed as the title) is judged by that page, not the page it was pressed on, and a
   * field whose value named it also holds where the field showed the value before such a
   * save (NamedSave.ts): the record opened at its missing page, its title filled already,
   * is the record the demo created.
   */
  savesByName: "11",
  /**
   * A field whose role and name another on the page shares is also told by the element
   * listed right after it (`validateEdit`'s `next`: a tiddler's "field value" box before its
   * row's "remove field", the new field's before "add"). By the first box of that name
   * alone, a run that removed the field and typed the value into the new field's box, and
   * never added it, made the same edit.
   */
  sharedNamesByNeighbour: "11",
  /**
   * A press that saved a form filled by position (cells with no name, reached with Tab) is
   * also judged by the figures it moved (MovedFigures.ts): the account's "Checking 3,765.50",
   * moved by -18.40 as in the demo. Typing alone cannot tell a payment from a deposit when
   * both cells are nameless; the balance can.
   */
  movedFigures: "12"
})

export type SynthesisVersion = VersionOf<typeof SYNTHESIS>
export type SynthesisRules = RuleSet<typeof SYNTHESIS>

/** The synthesis rules of a recorded version (anything else, a run from before versions, is version 1). */
export const synthesisRulesAt = (recorded: unknown): SynthesisRules => rulesAt(SYNTHESIS, recorded)
