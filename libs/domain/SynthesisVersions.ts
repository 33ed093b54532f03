/**
 * The label-function synthesizer's versions, and the rules each keeps, asked by name
 * (`judgesEditsByEffect(v)`) rather than by comparing version literals where a rule acts.
 * Each rule holds from the version that brought it on: a run keeps the version it recorded
 * (`infer.synthesis`), so its replays infer the same code.
 *
 * @example
 * const version = synthesisVersionOf(config["infer.synthesis"]) // "1" for runs before versions
 * if (submitsByTypedText(version)) pattern = typedUrlPattern(url, typed)
 */
import { versioned } from "./Versions.ts"

export type SynthesisVersion = "1" | "2" | "3" | "4" | "5" | "6" | "7"
/** What new runs record. */
export const SYNTHESIS_VERSION: SynthesisVersion = "7"

const versions = versioned<SynthesisVersion>(["1", "2", "3", "4", "5", "6", "7"])

/** A run's recorded version; anything else (a run from before versions) is version 1. */
export const synthesisVersionOf = versions.of

/** The version each rule came with. */
const SINCE = {
  wholePhraseAnswers: "2",
  unchosenStartClicks: "2",
  readsValues: "3",
  readsBareValues: "4",
  dropsInPageLinks: "4",
  judgesEditsByEffect: "5",
  submitsByTypedText: "6",
  tellsNamelessFieldsApart: "7",
  generalisesMintedUuids: "7",
  submitsWhenPageStays: "7"
} as const satisfies Record<string, SynthesisVersion>

const holds = (rule: keyof typeof SINCE) => versions.since(SINCE[rule])

/** An answer holds when it contains the demo's as a whole phrase ("the Workshop" for "Workshop"). */
export const wholePhraseAnswers = holds("wholePhraseAnswers")
/** A click that left the untouched start page is not tied to that page: the task chose it. */
export const unchosenStartClicks = holds("unchosenStartClicks")
/** A sentence that reports one value holds for any answer reporting the same value. */
export const readsValues = holds("readsValues")
/** A bare value that is no plain number holds when reported among other words. */
export const readsBareValues = holds("readsBareValues")
/** Key steps leave out a link that neither left the page nor changed it. */
export const dropsInPageLinks = holds("dropsInPageLinks")
/** An edit in place is judged by the field's content after it (FieldEdits.ts). */
export const judgesEditsByEffect = holds("judgesEditsByEffect")
/**
 * A typed-and-submitted step's page after it is judged by the query parameters that carry
 * the typed text (`search=Curlew`), not by those the way of submitting added (`go=Go` after
 * Enter beside a suggestion list, `fulltext=Search` without one).
 */
export const submitsByTypedText = holds("submitsByTypedText")
/**
 * Typing into a field without a name is not overwritten by typing into another nameless
 * field (KeySteps.ts, `namelessApart`): a table's cells edited in turn are different fields.
 */
export const tellsNamelessFieldsApart = holds("tellsNamelessFieldsApart")
/**
 * A UUID in the URL a button led to is generalised whole (`/accounts/<any uuid>`): the
 * button minted it, and before version 6 only its digits were, so its letters tied the LF
 * to the demo's own new record.
 */
export const generalisesMintedUuids = holds("generalisesMintedUuids")
/**
 * A text typed and submitted on a page that stayed (a new group's name and Enter) is checked
 * with its submit: the field showed the text before the Enter too, so without it a run that
 * typed the name and never pressed Enter passed, and nothing was created.
 */
export const submitsWhenPageStays = holds("submitsWhenPageStays")
