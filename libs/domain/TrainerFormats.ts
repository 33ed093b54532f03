/**
 * Dataset records (Datasets.ts) in the layouts three trainers load: TRL, LLaMA-Factory and
 * verl (docs/datasets.md, "Trainer layouts"). Pure: a record in, a row out — or the reason
 * the trainer's loader would refuse the record or, worse, silently skip it. Each rule kept
 * here is one the loader itself enforces; the comment beside it names the loader's file and
 * function, and tests/dataset-formats.test.ts checks every export of a real run against it.
 *
 * Images are what the record's `images` list names (blob hashes); `imageRef` turns each into
 * what the layout holds (a path beside the file, or the hash again for the caller to fill
 * in the bytes).
 *
 * @example
 * trainerRow("trl", record, (h) => `images/${h}.png`)
 * // { ok: true, row: { messages: [{ role: "user", content: [{ type: "image" }, { type: "text", text: "…" }] }, …], images: ["images/….png"] }, images: ["…"] }
 */
import type { DatasetFormat } from "@core/events"

export type Trainer = "trl" | "llama-factory" | "verl"
export const TRAINERS: ReadonlyArray<Trainer> = ["trl", "llama-factory", "verl"]

/**
 * The record formats each trainer has a layout for. Rollout records become TRL's stepwise
 * supervision (one label per step); LLaMA-Factory and verl have no layout for per-step labels.
 */
export const TRAINER_FORMATS: Readonly<Record<Trainer, ReadonlyArray<DatasetFormat>>> = {
  trl: ["sft", "dpo", "rollout"],
  "llama-factory": ["sft", "dpo"],
  verl: ["sft", "dpo"]
}

/** A screenshot's place in a turn's text, as Datasets.ts writes it and LLaMA-Factory and verl read it. */
export const IMAGE_TOKEN = "<image>"
/**
 * The same five characters when a page (not a screenshot) wrote them: every loader counts
 * `<image>` as an image, so one in the page's text would break the count.
 */
export const ESCAPED_IMAGE_TOKEN = "&lt;image&gt;"
/** TRL's PRM trainer joins completions with `step_separator` ("\n" by default, prm_config.py). */
export const PRM_STEP_SEPARATOR = "\n"
/** verl's `ability` column: what the rows train. */
export const VERL_ABILITY = "gui-agent"

export interface SourceRecord {
  readonly recordId: string
  readonly runId: string
  readonly round: number
  readonly format: DatasetFormat
  readonly taskId: string
  readonly trajectoryIds: ReadonlyArray<string>
  readonly body: unknown
}

export type Converted<Row> =
  | { readonly ok: true; readonly row: Row; readonly images: ReadonlyArray<string> }
  | { readonly ok: false; readonly reason: string }

export type Role = "system" | "user" | "assistant"
export interface Message {
  readonly role: Role
  readonly content: string
}
export type ContentPart = { readonly type: "image" } | { readonly type: "text"; readonly text: string }
export interface TypedMessage {
  readonly role: Role
  readonly content: ReadonlyArray<ContentPart>
}

export interface VerlRow {
  readonly data_source: string
  readonly prompt: ReadonlyArray<Message>
  /** Blob hashes, in placeholder order: the writer stores each as `{ bytes }`. */
  readonly images: ReadonlyArray<string>
  readonly ability: string
  readonly reward_model: { readonly style: "rule"; readonly ground_truth: string }
  readonly extra_info: {
    readonly split: string
    readonly index: number
    readonly record_id: string
    readonly run_id: string
    readonly round: number
    readonly format: DatasetFormat
    readonly task_id: string
    readonly trajectory_ids: ReadonlyArray<string>
    /** dpo only: the answer the pair rejects, for a scorer that wants it. */
    readonly rejected?: string
  }
}

const ROLES: ReadonlyArray<string> = ["system", "user", "assistant"]

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const fail = (reason: string) => ({ ok: false, reason }) as const

/** Chat turns with string content and one of the three roles the layouts map; else why not. */
const messagesOf = (u: unknown, key: string): ReadonlyArray<Message> | string => {
  if (!Array.isArray(u)) return `its ${key} is not a list of chat turns`
  const out: Array<Message> = []
  for (const m of u) {
    if (!isObject(m) || typeof m.role !== "string" || typeof m.content !== "string")
      return `its ${key} holds a turn without a string role and content`
    // LLaMA-Factory maps exactly these tags (dataset_info "tags"); TRL's
    // prepare_multimodal_messages raises on any other role but "tool", which records never hold.
    if (!ROLES.includes(m.role)) return `its ${key} holds a '${m.role}' turn (only system, user and assistant)`
    out.push({ role: m.role as Role, content: m.content })
  }
  return out
}

const imagesOf = (body: Record<string, unknown>): ReadonlyArray<string> | string =>
  body.images === undefined
    ? []
    : Array.isArray(body.images) && body.images.every((h) => typeof h === "string")
      ? (body.images as ReadonlyArray<string>)
      : "its images are not a list of blob hashes"

const tokens = (s: string): number => s.split(IMAGE_TOKEN).length - 1

/**
 * The turns with exactly `n` image placeholders, all in user turns. LLaMA-Factory
 * (mm_plugin.py `_validate_messages`) and verl (rl_dataset.py `_build_messages`) both fail
 * when the `<image>` count differs from the images; so the first `n` tokens of the user turns
 * are the screenshots and any later one, or one in a system or assistant turn, is a page's
 * text and is escaped. A record with images and no tokens at all gets them before its
 * first user turn's text, where TRL's `prepare_multimodal_messages` puts images given
 * with plain-string content.
 */
export const placeImages = (messages: ReadonlyArray<Message>, n: number): ReadonlyArray<Message> | string => {
  const found = messages.reduce((k, m) => k + (m.role === "user" ? tokens(m.content) : 0), 0)
  if (found > 0 && found < n) return `it has ${n} images but only ${found} ${IMAGE_TOKEN} tokens to place them`
  let left = n
  const out = messages.map((m): Message => {
    const parts = m.content.split(IMAGE_TOKEN)
    let content = parts[0]!
    for (const part of parts.slice(1)) {
      const placeholder = m.role === "user" && left > 0
      if (placeholder) left--
      content += (placeholder ? IMAGE_TOKEN : ESCAPED_IMAGE_TOKEN) + part
    }
    return { role: m.role, content }
  })
  if (left === 0) return out
  const first = out.findIndex((m) => m.role === "user")
  if (first < 0) return `it has ${n} images but no user turn to show them in`
  out[first] = { role: "user", content: IMAGE_TOKEN.repeat(left) + out[first]!.content }
  return out
}

/**
 * System first or not at all, then user and assistant turns alternating from a user turn,
 * ending with `last`. LLaMA-Factory's sharegpt converter (converter.py
 * `SharegptDatasetConverter.__call__`) skips a record whose turns break this ("Invalid role
 * tag", "Invalid message count") — a loss it only logs; chat templates such as Llama's and
 * Mistral's raise on it.
 */
export const alternationError = (messages: ReadonlyArray<Message>, last: "user" | "assistant"): string | null => {
  const turns = messages[0]?.role === "system" ? messages.slice(1) : messages
  for (let i = 0; i < turns.length; i++) {
    const want = i % 2 === 0 ? "user" : "assistant"
    if (turns[i]!.role !== want) return `turn ${i + 1} after the system prompt is '${turns[i]!.role}', not '${want}'`
  }
  if (turns.length === 0 || turns.at(-1)!.role !== last) return `its turns do not end with a ${last} turn`
  return null
}

/** A turn's text as TRL's typed parts: each `<image>` becomes an image part where it stood. */
export const typedContent = (content: string): ReadonlyArray<ContentPart> =>
  content
    .split(IMAGE_TOKEN)
    .flatMap(
      (text, i): Array<ContentPart> => [
        ...(i > 0 ? [{ type: "image" as const }] : []),
        ...(text === "" ? [] : [{ type: "text" as const, text }])
      ]
    )

const typed = (messages: ReadonlyArray<Message>): ReadonlyArray<TypedMessage> =>
  messages.map((m) => ({ role: m.role, content: typedContent(m.content) }))

interface Chat {
  /** sft: the whole conversation; dpo: the shared prompt. */
  readonly messages: ReadonlyArray<Message>
  readonly chosen: Message | null
  readonly rejected: Message | null
  readonly images: ReadonlyArray<string>
}

const single = (u: unknown, key: string): Message | string => {
  const ms = messagesOf(u, key)
  if (typeof ms === "string") return ms
  // LLaMA-Factory's pairwise example takes one assistant turn each (converter.py: chosen and rejected are dicts).
  if (ms.length !== 1 || ms[0]!.role !== "assistant") return `its ${key} is not exactly one assistant turn`
  return { role: "assistant", content: ms[0]!.content.replaceAll(IMAGE_TOKEN, ESCAPED_IMAGE_TOKEN) }
}

/** An sft or dpo record's turns, images placed and roles checked; else why it cannot be written. */
export const chatOf = (r: SourceRecord): Chat | string => {
  if (!isObject(r.body)) return "its body is not an object"
  const images = imagesOf(r.body)
  if (typeof images === "string") return images
  if (r.format === "sft") {
    const ms = messagesOf(r.body.messages, "messages")
    if (typeof ms === "string") return ms
    const placed = placeImages(ms, images.length)
    if (typeof placed === "string") return placed
    const bad = alternationError(placed, "assistant")
    return bad ?? { messages: placed, chosen: null, rejected: null, images }
  }
  if (r.format === "dpo") {
    const ms = messagesOf(r.body.prompt, "prompt")
    if (typeof ms === "string") return ms
    const placed = placeImages(ms, images.length)
    if (typeof placed === "string") return placed
    // TRL's apply_chat_template adds the generation prompt only after a user turn; LLaMA-Factory's ranking example wants an odd count.
    const bad = alternationError(placed, "user")
    if (bad !== null) return `its prompt: ${bad}`
    const chosen = single(r.body.chosen, "chosen")
    if (typeof chosen === "string") return chosen
    const rejected = single(r.body.rejected, "rejected")
    if (typeof rejected === "string") return rejected
    return { messages: placed, chosen, rejected, images }
  }
  return `a ${r.format} record is not a conversation`
}

/**
 * TRL's stepwise supervision from a rollout record (prm_trainer.py `tokenize_row`): the
 * task as `prompt`, one completion per step, and one boolean label per completion — the two
 * lists zipped with strict=True, so of one length. A step is labelled true when it earned
 * reward (a label function first held after it) and raised no error. The PRM trainer
 * tokenizes text only, so no images.
 */
const stepwiseOf = (r: SourceRecord): Converted<Record<string, unknown>> => {
  if (!isObject(r.body) || typeof r.body.instruction !== "string" || !Array.isArray(r.body.steps))
    return fail("it has no instruction and steps")
  const completions: Array<string> = []
  const labels: Array<boolean> = []
  for (const s of r.body.steps) {
    if (!isObject(s) || typeof s.description !== "string" || typeof s.reward !== "number")
      return fail("a step has no description and reward")
    // A completion holding the separator would read as two steps with one label.
    completions.push(s.description.replaceAll(PRM_STEP_SEPARATOR, " "))
    labels.push(s.reward > 0 && (s.error === null || s.error === undefined))
  }
  return { ok: true, row: { prompt: r.body.instruction, completions, labels }, images: [] }
}

const trlRow = <I>(r: SourceRecord, imageRef: (hash: string) => I): Converted<Record<string, unknown>> => {
  if (r.format === "rollout") return stepwiseOf(r)
  const chat = chatOf(r)
  if (typeof chat === "string") return fail(chat)
  const images = chat.images.map(imageRef)
  // TRL's vision collators call prepare_multimodal_messages(prompt, images) and, for dpo,
  // chosen and rejected with no images: placeholders sit in the prompt only.
  const row =
    chat.chosen === null
      ? { messages: typed(chat.messages), images }
      : { prompt: typed(chat.messages), chosen: typed([chat.chosen]), rejected: typed([chat.rejected!]), images }
  return { ok: true, row, images: chat.images }
}

const llamaFactoryRow = <I>(r: SourceRecord, imageRef: (hash: string) => I): Converted<Record<string, unknown>> => {
  const chat = chatOf(r)
  if (typeof chat === "string") return fail(chat)
  const images = chat.images.map(imageRef)
  const row =
    chat.chosen === null
      ? { messages: chat.messages, images }
      : { messages: chat.messages, chosen: chat.chosen, rejected: chat.rejected, images }
  return { ok: true, row, images: chat.images }
}

/** verl's `data_source`, by which its reward loop picks the scorer (reward_score `default_compute_score`). */
export const verlDataSource = (runId: string): string => `core/${runId}`

/**
 * A verl RL row (the layout of examples/data_preprocess/geo3k.py, read by rl_dataset.py
 * `RLHFDataset`): the prompt up to the user turn, `<image>` tokens in its text standing for
 * the `images` in order, and the record's answer (dpo: the chosen one) as the rule-based
 * reward's ground truth.
 */
export const verlRow = (r: SourceRecord, index: number, split = "train"): Converted<VerlRow> => {
  const chat = chatOf(r)
  if (typeof chat === "string") return fail(chat)
  const prompt = chat.chosen === null ? chat.messages.slice(0, -1) : chat.messages
  const answer = chat.chosen === null ? chat.messages.at(-1)!.content : chat.chosen.content
  const row: VerlRow = {
    data_source: verlDataSource(r.runId),
    prompt,
    images: chat.images,
    ability: VERL_ABILITY,
    reward_model: { style: "rule", ground_truth: answer },
    extra_info: {
      split,
      index,
      record_id: r.recordId,
      run_id: r.runId,
      round: r.round,
      format: r.format,
      task_id: r.taskId,
      trajectory_ids: r.trajectoryIds,
      ...(chat.rejected === null ? {} : { rejected: chat.rejected.content })
    }
  }
  return { ok: true, row, images: chat.images }
}

/** A JSON-lines trainer's row for a record: TRL's or LLaMA-Factory's. */
export const trainerRow = <I>(
  trainer: "trl" | "llama-factory",
  r: SourceRecord,
  imageRef: (hash: string) => I
): Converted<Record<string, unknown>> => (trainer === "trl" ? trlRow(r, imageRef) : llamaFactoryRow(r, imageRef))

/**
 * The `dataset_info.json` entry LLaMA-Factory needs to load a file (parser.py
 * `DatasetAttr.join`): sharegpt formatting, the columns by name, OpenAI-style role tags.
 */
export const llamaFactoryDatasetInfo = (format: "sft" | "dpo", fileName: string) => ({
  file_name: fileName,
  formatting: "sharegpt",
  ...(format === "dpo" ? { ranking: true } : {}),
  columns: {
    messages: "messages",
    ...(format === "dpo" ? { chosen: "chosen", rejected: "rejected" } : {}),
    images: "images"
  },
  tags: { role_tag: "role", content_tag: "content", user_tag: "user", assistant_tag: "assistant", system_tag: "system" }
})
