/**
 * A multimodal policy on an OpenAI-compatible server: instruction + observation history →
 * one action of the shared vocabulary (the paper's harness: a screenshot, the element list
 * as text, the action history). The image is the observation's set-of-marks image (the
 * screenshot with each listed element's id drawn on its box, `observation.marks`) when the
 * caller gives one, else the plain screenshot, else none. It enters the request by hash
 * only, so the request digest and replay need no blob; the live client inlines it. The
 * prompt and the user message tell the model the elements are marked whenever an image is
 * attached, which a plain screenshot is not (see `SCREEN_WITH_IMAGE` for why the words stay).
 *
 * The loop reads no clock and no randomness (sampling happens on the server, and its
 * answer is recorded), so replay makes the same calls and decides the same action.
 *
 * @example
 * const { action, thought, callIndex } = yield* modelPolicyAction(
 *   { instruction, url, title, elementsText: view.text, elementIds, screenshot: o.screenshot, marks: o.marks, history },
 *   { model, temperature: 1, topP: 1, causationId, callIndex: 0 }) // needs Models
 */
import { Effect, Predicate, Result, Schema } from "effect"
import { Action, ActionKind, canonicalJson, oneLine } from "@core/events"
import type { Target } from "@core/events"
import type { Models } from "@core/engine"
import { chat } from "@core/models"
import type { ChatMessage, ModelError } from "@core/models"
import { imageRef } from "@core/models"
import { loadPrompt, renderPrompt } from "@core/models"
import type { PromptNotFound, PromptVariableMissing } from "@core/models"

export interface PolicyHistoryItem {
  readonly action: Action
  /** Where the action left the agent; null on Android. */
  readonly url: string | null
  /** The environment's complaint about the action, if any. */
  readonly error: string | null
}

export interface PolicyElement {
  readonly role: string
  readonly name: string
  readonly text: string
}

export interface ModelPolicyInput {
  readonly instruction: string
  readonly url: string | null
  readonly title: string | null
  /** The environment's policy view text: one element per line with its id. */
  readonly elementsText: string
  /** id → element, to build the chosen action's target. */
  readonly elementIds: ReadonlyMap<string, PolicyElement>
  /** sha256 of the screenshot's PNG blob; sent when there is no `marks`. Null with no marks: no image. */
  readonly screenshot: string | null
  /**
   * sha256 of the set-of-marks PNG (`observation.marks`): sent instead of `screenshot`.
   * Absent or null: the plain screenshot is sent.
   */
  readonly marks?: string | null
  readonly history: ReadonlyArray<PolicyHistoryItem>
}

export interface ModelPolicyOptions {
  readonly model: string
  readonly temperature: number
  readonly topP: number
  /** Default `DEFAULT_POLICY_MAX_TOKENS`. */
  readonly maxTokens?: number
  /** The event being handled (e.g. the rollout step's cause). */
  readonly causationId: string
  /** The first call's index; a retry uses `callIndex + 1`. */
  readonly callIndex: number
}

export interface PolicyDecision {
  readonly action: Action
  readonly thought: string
  /** The call whose answer was used: `options.callIndex`, or one more after a retry. */
  readonly callIndex: number
}

export const POLICY_PURPOSE = "policy"
export const DEFAULT_POLICY_MAX_TOKENS = 512

/**
 * Two answers in a row could not be turned into an action. A typed failure, not a
 * fallback action: a made-up `wait` or `status` would enter the trajectory as the
 * policy's choice (and `infeasible` would even end it with a verdict-bearing claim),
 * whereas an error step records what happened.
 */
export class PolicyAnswerInvalid extends Schema.TaggedError<PolicyAnswerInvalid>()("PolicyAnswerInvalid", {
  causationId: Schema.String,
  /** The last call made. */
  callIndex: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return `policy answer of call ${this.callIndex} of ${this.causationId.slice(0, 12)} unusable: ${this.reason}`
  }
}

/** Each balanced `{…}` in the text (strings respected), by start position. */
function* balancedObjects(text: string): Generator<string> {
  for (let start = text.indexOf("{"); start !== -1; start = text.indexOf("{", start + 1)) {
    let depth = 0
    let inString = false
    let escaped = false
    for (let i = start; i < text.length; i++) {
      const c = text[i]
      if (inString) {
        if (escaped) escaped = false
        else if (c === "\\") escaped = true
        else if (c === '"') inString = false
      } else if (c === '"') {
        inString = true
      } else if (c === "{") {
        depth++
      } else if (c === "}" && --depth === 0) {
        yield text.slice(start, i + 1)
        break
      }
    }
  }
}

/**
 * The first object that parses and names an action: `{"thought", "action": {…}}`, a bare
 * action `{"kind": …}`, or `{"action": "click", "element": …}` with the fields alongside.
 */
const findAnswer = (text: string): { action: Record<string, unknown>; thought: string } | { error: string } => {
  let parsedAny = false
  for (const candidate of balancedObjects(text)) {
    let json: unknown
    try {
      json = JSON.parse(candidate)
    } catch {
      continue
    }
    if (!Predicate.isObject(json)) continue
    parsedAny = true
    const thought = typeof json.thought === "string" ? json.thought.trim() : ""
    if (Predicate.isObject(json.action)) return { action: json.action, thought }
    if (typeof json.action === "string") {
      const { thought: _, action: kind, ...fields } = json
      return { action: { ...fields, kind }, thought }
    }
    if (typeof json.kind === "string") return { action: json, thought }
  }
  return { error: parsedAny ? 'the JSON object has no "action"' : "no JSON object in the answer" }
}

const TARGETED: ReadonlySet<string> = new Set(["click", "long_press", "type", "select", "scroll"])
/** Where a model may put the element id; `target` may also be `{ "elementId": … }`. */
const ID_KEYS = ["element", "id", "elementId", "element_id", "target"] as const

const idOf = (action: Record<string, unknown>): string | null => {
  for (const key of ID_KEYS) {
    let value = action[key]
    if (Predicate.isObject(value)) value = value.elementId ?? value.element_id ?? value.id ?? null
    if (typeof value === "number" && Number.isFinite(value)) return String(value)
    if (typeof value === "string" && value.trim() !== "")
      return value
        .trim()
        .replace(/^\[(.*)\]$/, "$1")
        .trim()
  }
  return null
}

const isActionKind = Schema.is(ActionKind)
const decodeAction = Schema.decodeUnknownResult(Action)

/**
 * The model's answer as an action, its element id resolved against `elementIds` into a
 * target (role, name, id, text; empty text is null, as the web environment records it).
 * A bare number also finds the web's `e<n>` when no id is exactly that number.
 * click, long_press, type and select need an element; scroll without one scrolls the screen.
 */
export const parsePolicyAnswer = (
  text: string,
  elementIds: ModelPolicyInput["elementIds"]
): { action: Action; thought: string } | { error: string } => {
  const found = findAnswer(text.replace(/<think>[\s\S]*?(<\/think>|$)/g, " "))
  if ("error" in found) return found
  const { kind } = found.action
  if (typeof kind !== "string" || !isActionKind(kind)) {
    return { error: `unknown action kind ${oneLine(JSON.stringify(kind) ?? "undefined", 40)} (one of ${ActionKind.literals.join(", ")})` }
  }
  const fields: Record<string, unknown> = { ...found.action }
  for (const key of ID_KEYS) delete fields[key]
  if (TARGETED.has(kind)) {
    const id = idOf(found.action)
    if (id === null) {
      if (kind !== "scroll") return { error: `${kind} needs an "element" id from the element list` }
      fields.target = null
    } else {
      const key = elementIds.has(id) ? id : /^\d+$/.test(id) && elementIds.has(`e${id}`) ? `e${id}` : null
      if (key === null) return { error: `unknown element id ${oneLine(JSON.stringify(id), 40)}: not in the element list` }
      const element = elementIds.get(key)!
      fields.target = {
        role: element.role,
        name: element.name,
        elementId: key,
        text: element.text === "" ? null : element.text
      } satisfies Target
    }
  }
  const decoded = decodeAction(fields)
  if (Result.isFailure(decoded)) return { error: `invalid ${kind} action: ${oneLine(decoded.failure.message, 200)}` }
  return { action: decoded.success, thought: found.thought }
}

/** An action as the model would write it (the element by id, keys sorted), for the history. */
const asWritten = (action: Action): string => {
  if (!("target" in action)) return canonicalJson(action)
  const { target, ...rest } = action
  const id = target?.elementId ?? null
  return canonicalJson(id === null ? rest : { ...rest, element: id })
}

const describeTarget = (target: Target | null): string => {
  if (target === null) return ""
  const name = target.name ?? target.text
  return [target.role, name ? JSON.stringify(oneLine(name, 80)) : null].filter((p) => p !== null).join(" ")
}

/** Numbered, one line each: the action as written, what it aimed at, where it led, what went wrong. */
export const historyText = (history: ReadonlyArray<PolicyHistoryItem>): string => {
  if (history.length === 0) return "(none yet)"
  return history
    .map((item, i) => {
      const parts = [`${i + 1}. ${asWritten(item.action)}`]
      const target = "target" in item.action ? describeTarget(item.action.target) : ""
      if (target !== "") parts.push(`on ${target}`)
      if (item.url !== null) parts.push(`→ ${item.url}`)
      if (item.error !== null) parts.push(`error: ${oneLine(item.error, 200)}`)
      return parts.join(" ")
    })
    .join("\n")
}

/**
 * The user message with an image. It says the elements are marked, which is so for a
 * set-of-marks image only; a plain screenshot gets the same words because every run logged
 * before marks existed sent them with one, and a replay must make its requests again
 * byte for byte (the request digest), so this text stays as it was recorded.
 */
const SCREEN_WITH_IMAGE = "The current screenshot, with the elements marked by their ids. What is the next action?"
const SCREEN_WITHOUT_IMAGE = "No screenshot this step; use the element list. What is the next action?"

const retryMessage = (error: string): string =>
  `Your answer could not be used: ${error}. Answer again with exactly one JSON object ` +
  `{"thought": "...", "action": {...}} using an action and an element id from the lists above.`

/**
 * The next action: one "policy" call, and on an unusable answer one more (`callIndex + 1`)
 * with the model's answer and the reason added to the conversation; a second unusable
 * answer fails with `PolicyAnswerInvalid`.
 */
export const modelPolicyAction = Effect.fnUntraced(function* (
  input: ModelPolicyInput,
  options: ModelPolicyOptions
): Effect.fn.Return<PolicyDecision, ModelError | PolicyAnswerInvalid | PromptNotFound | PromptVariableMissing, Models> {
  const prompt = yield* loadPrompt("policy")
  const system = yield* renderPrompt(prompt, {
    instruction: input.instruction.trim(),
    url: input.url ?? "(none)",
    title: input.title === null || input.title.trim() === "" ? "(none)" : oneLine(input.title, 200),
    elements: input.elementsText.trim() === "" ? "(no elements)" : input.elementsText.trimEnd(),
    history: historyText(input.history)
  })
  const image = input.marks ?? input.screenshot
  const user: ChatMessage =
    image === null
      ? { role: "user", content: SCREEN_WITHOUT_IMAGE }
      : { role: "user", content: [{ type: "text", text: SCREEN_WITH_IMAGE }, imageRef(image)] }
  const ask = (callIndex: number, messages: ReadonlyArray<ChatMessage>) =>
    chat({
      causationId: options.causationId,
      callIndex,
      model: options.model,
      purpose: POLICY_PURPOSE,
      prompt,
      messages,
      temperature: options.temperature,
      topP: options.topP,
      maxTokens: options.maxTokens ?? DEFAULT_POLICY_MAX_TOKENS
    })

  const messages: ReadonlyArray<ChatMessage> = [{ role: "system", content: system }, user]
  const first = yield* ask(options.callIndex, messages)
  const parsed = parsePolicyAnswer(first.text, input.elementIds)
  if (!("error" in parsed)) return { ...parsed, callIndex: options.callIndex }

  const retryIndex = options.callIndex + 1
  const second = yield* ask(retryIndex, [
    ...messages,
    { role: "assistant", content: first.text },
    { role: "user", content: retryMessage(parsed.error) }
  ])
  const reparsed = parsePolicyAnswer(second.text, input.elementIds)
  if (!("error" in reparsed)) return { ...reparsed, callIndex: retryIndex }
  return yield* new PolicyAnswerInvalid({ causationId: options.causationId, callIndex: retryIndex, reason: reparsed.error })
})
