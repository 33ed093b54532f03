/**
 * Whether a task asks for a change to the app, and whether an episode has made one yet
 * (exploration version 6, `completesAfterChange`). A stand-in policy that says "complete"
 * right after it clicked a link naming the task's object ("Generator G2") ended most of its
 * edit and create episodes before it had changed anything, which no verifier can pass.
 *
 * @example
 * asksForChange('Add the tag "Urgent" to the tiddler "Water Pump".') // true
 * asksForChange('Open the tiddler "Storm Protocol".') // false
 * madeChange([{ action: { kind: "type", target, text: "Urgent", submit: true }, url: null, error: null }]) // true
 */
import type { Action } from "@core/events"

/** Verbs of instructions that want the app's state changed, in their usual forms. */
const CHANGE_VERBS = new Set(
  [
    "add",
    "append",
    "archive",
    "assign",
    "book",
    "buy",
    "cancel",
    "change",
    "clear",
    "create",
    "delete",
    "disable",
    "edit",
    "enable",
    "fill",
    "fix",
    "hide",
    "insert",
    "invite",
    "mark",
    "move",
    "order",
    "post",
    "publish",
    "register",
    "remove",
    "rename",
    "replace",
    "reply",
    "reset",
    "save",
    "schedule",
    "send",
    "set",
    "sign",
    "star",
    "submit",
    "subscribe",
    "switch",
    "tag",
    "toggle",
    "transfer",
    "turn",
    "uncheck",
    "unsubscribe",
    "update",
    "upload",
    "vote",
    "write"
  ].flatMap((v) => [v, `${v}s`, `${v}ed`, `${v}d`])
)

/** Roles whose click toggles a state rather than going somewhere. */
const TOGGLES = new Set(["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"])

/**
 * Does the instruction ask for a change? Its first word, or the first word after a comma
 * or "and"/"then", is a change verb ("In the tiddler X, change …"). Words that also ask to
 * look ("check", "show", "follow") are left out: an answer or a page is what those want.
 */
export const asksForChange = (instruction: string): boolean =>
  instruction
    .toLowerCase()
    .split(/[,;:.]|\band\b|\bthen\b/)
    .some((clause) => {
      const first = clause.match(/[a-z]+/)?.[0]
      return first !== undefined && CHANGE_VERBS.has(first)
    })

/** Does a control's name start with a change verb ("Edit this tiddler", "Delete", "Add account")? A reader has no use for it. */
export const namesChange = (name: string): boolean => {
  const first = name.toLowerCase().match(/[a-z]+/)?.[0]
  return first !== undefined && CHANGE_VERBS.has(first)
}

/** Has the episode typed, picked an option, pressed a key or toggled something? */
export const madeChange = (history: ReadonlyArray<{ readonly action: Action; readonly error: string | null }>): boolean =>
  history.some(
    (h) =>
      h.error === null &&
      (h.action.kind === "type" ||
        h.action.kind === "select" ||
        h.action.kind === "key" ||
        (h.action.kind === "click" && TOGGLES.has(h.action.target?.role ?? "")))
  )
