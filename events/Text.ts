/**
 * Text for one-line messages: an error's message, the first line of a text, a text on one
 * line. Errors reach users as one line (`error: …`) and enter events as one field, so every
 * package shapes them with these rather than its own variant.
 *
 * @example
 * oneLine(messageOf(new Error("no such\n  element")), 12) // "no such elem…"
 */
import { Predicate } from "effect"

/** The message of an Error (or of anything with a `message`), else the value as a string. */
export const messageOf = (cause: unknown): string => (Predicate.hasProperty(cause, "message") ? String(cause.message) : String(cause))

/** The text up to its first line break. */
export const firstLine = (text: string): string => text.split("\n")[0] ?? ""

/** Every run of white space (line breaks too) as one space, trimmed, cut after `max` characters with "…". */
export const oneLine = (text: string, max = Number.POSITIVE_INFINITY): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max)}…` : flat
}

/** Each non-empty line trimmed, joined with "; ": keeps a multi-line report's parts apart on one line. */
export const joinLines = (text: string): string =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .join("; ")
