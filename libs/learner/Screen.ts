/**
 * What the learner sees of one state: the instruction, the page (URL, title, the policy
 * view's element lines) and the steps before it. Training reads it back from a dataset
 * record's user turn; acting builds it from the live view by writing the same lines and
 * reading them back, so the two can never drift apart (truncation, one-line names, the
 * 150-element cut are the same on both sides).
 *
 * @example
 * const screen = screenOfView(view) // { instruction, url, title, elements, history, step, page }
 */
import { describeElement, selectElements } from "@core/environment"
import type { ElementInfo } from "@core/environment"

/** One element as a policy view line shows it: `[e3] textbox "Email" value="a@b.c" (disabled)`. */
export interface ScreenElement {
  readonly id: string
  readonly role: string
  readonly name: string
  readonly text: string
  readonly value: string | null
  readonly checked: boolean | null
  readonly enabled: boolean
  readonly visible: boolean
  readonly inViewport: boolean
}

export interface Screen {
  readonly instruction: string
  readonly url: string | null
  readonly title: string | null
  readonly elements: ReadonlyArray<ScreenElement>
  /** The earlier steps' descriptions (`describeAction`), oldest first. */
  readonly history: ReadonlyArray<string>
  readonly step: number
}

const LINE = /^\[([^\]\s]+)\] (\S+)(.*)$/
const QUOTED = /^ ("(?:[^"\\]|\\.)*")/
const FIELD = /^ (text|value)=("(?:[^"\\]|\\.)*")/
const FLAGS = /^ \(([^)]*)\)$/

/** One policy view line read back; null for the view's other lines (an error, "… more elements"). */
export const readElementLine = (line: string): ScreenElement | null => {
  const m = LINE.exec(line)
  if (m === null) return null
  let rest = m[3]!
  let name = ""
  let text: string | null = null
  let value: string | null = null
  const q = QUOTED.exec(rest)
  if (q !== null) {
    name = JSON.parse(q[1]!) as string
    rest = rest.slice(q[0].length)
  }
  for (let f = FIELD.exec(rest); f !== null; f = FIELD.exec(rest)) {
    const v = JSON.parse(f[2]!) as string
    if (f[1] === "text") text = v
    else value = v
    rest = rest.slice(f[0].length)
  }
  const flags = new Set((FLAGS.exec(rest)?.[1] ?? "").split(", ").filter((s) => s !== ""))
  return {
    id: m[1]!,
    role: m[2]!,
    name,
    text: text ?? name,
    value,
    checked: flags.has("checked") ? true : flags.has("unchecked") ? false : null,
    enabled: !flags.has("disabled"),
    visible: !flags.has("hidden"),
    inViewport: !flags.has("hidden") && !flags.has("offscreen")
  }
}

/** The element lines of a policy view's text, read back. */
export const readView = (text: string): ReadonlyArray<ScreenElement> =>
  text.split("\n").flatMap((l) => {
    const e = readElementLine(l)
    return e === null ? [] : [e]
  })

/** The live elements as a recorded view would show them: the same selection, the same lines. */
export const screenElements = (elements: ReadonlyArray<ElementInfo>): ReadonlyArray<ScreenElement> =>
  readView(selectElements(elements).map(describeElement).join("\n"))
