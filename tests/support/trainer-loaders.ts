/**
 * The checks three trainers' loaders make on a dataset, ported line for line from their
 * Python so that tests/dataset-formats.test.ts can hold `dataset export --for` to them
 * without a Python package index: LLaMA-Factory (src/llamafactory/data/converter.py,
 * mm_plugin.py), TRL (trl/data_utils.py, trl/experimental/prm/prm_trainer.py) and verl
 * (verl/utils/dataset/rl_dataset.py). Each function names the one it ports; where the
 * original raises, the port throws with the original's message.
 */
import { Template } from "@huggingface/jinja"

type Json = Record<string, unknown>
type Turn = { role: string; content: unknown }

// ---------------------------------------------------------------- LLaMA-Factory

/** parser.py `DatasetAttr` after `join(dataset_info[name])`: the defaults it starts from, overridden. */
export const datasetAttr = (entry: Json) => {
  const columns = (entry.columns ?? {}) as Json
  const tags = (entry.tags ?? {}) as Json
  return {
    formatting: (entry.formatting ?? "alpaca") as string,
    ranking: (entry.ranking ?? false) as boolean,
    messages: (columns.messages ?? "conversations") as string,
    images: columns.images as string | undefined,
    chosen: columns.chosen as string | undefined,
    rejected: columns.rejected as string | undefined,
    roleTag: (tags.role_tag ?? "from") as string,
    contentTag: (tags.content_tag ?? "value") as string,
    userTag: (tags.user_tag ?? "human") as string,
    assistantTag: (tags.assistant_tag ?? "gpt") as string,
    observationTag: (tags.observation_tag ?? "observation") as string,
    functionTag: (tags.function_tag ?? "function_call") as string,
    systemTag: (tags.system_tag ?? "system") as string
  }
}
export type DatasetAttr = ReturnType<typeof datasetAttr>

/**
 * converter.py `SharegptDatasetConverter.__call__`. Where the original logs "Invalid role
 * tag" or "Invalid message count" and skips the example (empty prompt and response), this
 * returns `broken` with that message: a skipped example is a record the trainer never sees.
 */
export const sharegptConvert = (example: Json, attr: DatasetAttr) => {
  const tagMapping: Record<string, string> = {
    [attr.userTag]: "user",
    [attr.assistantTag]: "assistant",
    [attr.observationTag]: "observation",
    [attr.functionTag]: "function",
    [attr.systemTag]: "system"
  }
  const oddTags = [attr.userTag, attr.observationTag]
  const evenTags = [attr.assistantTag, attr.functionTag]
  const acceptTags = [oddTags, evenTags]
  let messages = example[attr.messages] as Array<Json>
  let system = ""
  if (attr.systemTag && messages.length !== 0 && messages[0]![attr.roleTag] === attr.systemTag) {
    system = messages[0]![attr.contentTag] as string
    messages = messages.slice(1)
  }
  const aligned: Array<{ role: string; content: string }> = []
  let broken: string | null = null
  for (let i = 0; i < messages.length; i++) {
    const role = messages[i]![attr.roleTag] as string
    if (!acceptTags[i % 2]!.includes(role)) {
      broken = "Invalid role tag"
      break
    }
    aligned.push({ role: tagMapping[role]!, content: messages[i]![attr.contentTag] as string })
  }
  if ((!attr.ranking && aligned.length % 2 !== 0) || (attr.ranking && aligned.length % 2 === 0)) broken ??= "Invalid message count"
  const images = attr.images ? (example[attr.images] as Array<string>) : []
  if (broken !== null) return { broken, prompt: [], response: [], system, images }
  const isDict = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)
  const chosen = attr.chosen ? example[attr.chosen] : undefined
  const rejected = attr.rejected ? example[attr.rejected] : undefined
  if (attr.ranking && isDict(chosen) && isDict(rejected)) {
    const ok = (m: Json) => acceptTags[1]!.includes(m[attr.roleTag] as string)
    const response = [chosen, rejected].map((m) => ({
      role: tagMapping[m[attr.roleTag] as string]!,
      content: m[attr.contentTag] as string
    }))
    return { broken: ok(chosen) && ok(rejected) ? null : "Invalid role tag", prompt: aligned, response, system, images }
  }
  return { broken: null, prompt: aligned.slice(0, -1), response: aligned.slice(-1), system, images }
}

export const IMAGE_PLACEHOLDER = "<image>"

/** mm_plugin.py `MMPluginMixin._validate_messages`: the images match the `<image>` tokens of the turns it is given. */
export const validateMessages = (messages: ReadonlyArray<{ content: string }>, images: ReadonlyArray<unknown>): void => {
  let numImageTokens = 0
  for (const m of messages) numImageTokens += m.content.split(IMAGE_PLACEHOLDER).length - 1
  if (images.length !== numImageTokens)
    throw new Error(`The number of images does not match the number of ${IMAGE_PLACEHOLDER} tokens in ${JSON.stringify(messages)}.`)
}

/** mm_plugin.py `Qwen2VLPlugin.process_messages` with `expand_mm_tokens` off: each `<image>` becomes Qwen's vision span. */
export const qwen2vlPluginMessages = <M extends { role: string; content: string }>(
  messages: ReadonlyArray<M>,
  images: ReadonlyArray<unknown>
): Array<M> => {
  validateMessages(messages, images)
  return messages.map((m) => ({ ...m, content: m.content.replaceAll(IMAGE_PLACEHOLDER, "<|vision_start|><|image_pad|><|vision_end|>") }))
}

// ---------------------------------------------------------------- TRL

/** data_utils.py `is_conversational`. */
export const isConversational = (example: Json): boolean => {
  const key = ["prompt", "chosen", "rejected", "completion", "messages"].find((k) => k in example)
  if (key === undefined) return false
  const maybe = example[key]
  return Array.isArray(maybe) && typeof maybe[0] === "object" && maybe[0] !== null && "role" in maybe[0]
}

/** data_utils.py `apply_chat_template`: the key sets it accepts (else KeyError "Invalid keys in the example"). */
export const chatTemplateKeys = (example: Json): string => {
  const keys = ["prompt", "chosen", "rejected", "completion", "messages", "label"].filter((k) => k in example).sort()
  const accepted = [
    ["messages"],
    ["prompt"],
    ["completion", "prompt"],
    ["chosen", "prompt", "rejected"],
    ["chosen", "rejected"],
    ["completion", "label", "prompt"]
  ]
  if (!accepted.some((a) => a.join() === keys.join())) throw new Error(`Invalid keys in the example: ${keys}`)
  return keys.join(",")
}

/** data_utils.py `maybe_extract_prompt`: an explicit conversational prompt beside conversational chosen is kept as is. */
export const keepsExplicitPrompt = (example: Json): boolean =>
  "prompt" in example && isConversational({ chosen: example.chosen }) === isConversational({ prompt: example.prompt })

/**
 * data_utils.py `prepare_multimodal_messages`: string contents become text parts (the first
 * user turn's preceded by one image part per image); turns already in typed parts keep them;
 * the unfilled `{"type": "image"}` parts (outside tool turns) must number the images given.
 */
export const prepareMultimodalMessages = (messages: ReadonlyArray<Turn>, images: ReadonlyArray<unknown> = []): Array<Turn> => {
  let imagesIncluded = false
  const out = messages.map((m) => {
    if (!["system", "user", "assistant", "tool"].includes(m.role))
      throw new Error(`Invalid role in message: ${m.role}. Expected 'system', 'user', 'assistant', or 'tool'.`)
    if (typeof m.content !== "string") return m
    if (m.role === "user" && !imagesIncluded) {
      imagesIncluded = true
      return { ...m, content: [...images.map(() => ({ type: "image" })), { type: "text", text: m.content }] }
    }
    return { ...m, content: [{ type: "text", text: m.content }] }
  })
  const parts = (m: Turn) => (m.content as Array<Json>) ?? []
  const placeholders = out
    .filter((m) => m.content && m.role !== "tool")
    .reduce((n, m) => n + parts(m).filter((p) => p.type === "image" && !("image" in p)).length, 0)
  if (placeholders !== images.length)
    throw new Error(`Number of images provided (${images.length}) does not match number of image placeholders (${placeholders}).`)
  let i = 0
  return out.map((m) =>
    m.role === "tool"
      ? m
      : { ...m, content: parts(m).map((p) => (p.type === "image" && !("image" in p) ? { ...p, image: images[i++] } : p)) }
  )
}

/**
 * data_utils.py `apply_chat_template` for a preference example with an explicit prompt: the
 * prompt rendered with the generation prompt, cut to what prompt+chosen and prompt+rejected
 * share, and each completion the rest of its rendering.
 */
export const applyPreferenceTemplate = (example: { prompt: Array<Turn>; chosen: Array<Turn>; rejected: Array<Turn> }, render: Render) => {
  const last = example.prompt.at(-1)!.role
  if (last !== "user" && last !== "tool" && last !== "assistant") throw new Error(`Invalid role in the last message: ${last}`)
  let prompt = render(example.prompt, last === "user" || last === "tool")
  const promptChosen = render([...example.prompt, ...example.chosen], false)
  const promptRejected = render([...example.prompt, ...example.rejected], false)
  const common = (a: string, b: string) => {
    let k = 0
    while (k < a.length && k < b.length && a[k] === b[k]) k++
    return a.slice(0, k)
  }
  prompt = common(common(prompt, promptChosen), promptRejected)
  return { prompt, chosen: promptChosen.slice(prompt.length), rejected: promptRejected.slice(prompt.length) }
}

/**
 * prm_trainer.py `PRMTrainer.tokenize_row`, with characters for tokens: prompt, then each
 * completion followed by the separator, one label on each completion's last token. Its
 * `zip(..., strict=True)` raises when completions and labels differ in length.
 */
export const prmTokenizeRow = (features: { prompt: string; completions: Array<string>; labels: Array<boolean> }, stepSeparator = "\n") => {
  if (features.completions.length !== features.labels.length) throw new Error("zip() argument 2 is shorter or longer than argument 1")
  const labels = features.labels.map((l) => Number(l))
  const completions = features.completions.map((c) => [...c, ...stepSeparator])
  const stepLabels = completions.flatMap((c, i) => [...Array.from({ length: c.length - 1 }, () => -100), labels[i]!])
  return {
    input: features.prompt + completions.map((c) => c.join("")).join(""),
    labels: [...Array.from({ length: features.prompt.length }, () => -100), ...stepLabels]
  }
}

// ---------------------------------------------------------------- verl

/**
 * rl_dataset.py `RLHFDataset._build_messages`: string contents split on `<image>`/`<video>`
 * into typed parts, each image a dict with `bytes`; asserts every image was placed.
 */
export const verlBuildMessages = (example: {
  prompt: Array<{ role: string; content: string }>
  images?: Array<{ bytes: Uint8Array }> | null
}) => {
  const images = example.images ?? []
  let imageOffset = 0
  const messages: Array<Turn> = example.prompt.map((m) => {
    if (images.length === 0) return m
    const content: Array<Json> = []
    for (const segment of m.content.split(/(<image>|<video>)/).filter((s) => s !== "")) {
      if (segment === "<image>") {
        if (imageOffset >= images.length) throw new Error(`image_offset ${imageOffset} >= len(images) ${images.length}`)
        content.push({ type: "image", ...images[imageOffset] })
        imageOffset++
      } else if (segment === "<video>") throw new Error("no videos were given")
      else content.push({ type: "text", text: segment })
    }
    return { role: m.role, content }
  })
  if (imageOffset !== images.length) throw new Error(`image_offset ${imageOffset} != len(images) ${images.length}`)
  return messages
}

// ---------------------------------------------------------------- chat template

/**
 * Qwen2-VL's chat template (the same text ships with Qwen/Qwen2-VL-7B-Instruct and
 * Qwen/Qwen2.5-VL-7B-Instruct), copied from the "Qwen/Qwen2.5-VL-7B-Instruct" case of
 * @huggingface/jinja's own end-to-end tests (huggingface.js, packages/jinja/test/e2e.test.js).
 * Each image part renders as one `<|vision_start|><|image_pad|><|vision_end|>`.
 */
export const QWEN2_VL_CHAT_TEMPLATE =
  "{% set image_count = namespace(value=0) %}{% set video_count = namespace(value=0) %}{% for message in messages %}{% if loop.first and message['role'] != 'system' %}<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}<|im_start|>{{ message['role'] }}\n{% if message['content'] is string %}{{ message['content'] }}<|im_end|>\n{% else %}{% for content in message['content'] %}{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}{% set image_count.value = image_count.value + 1 %}{% if add_vision_id %}Picture {{ image_count.value }}: {% endif %}<|vision_start|><|image_pad|><|vision_end|>{% elif content['type'] == 'video' or 'video' in content %}{% set video_count.value = video_count.value + 1 %}{% if add_vision_id %}Video {{ video_count.value }}: {% endif %}<|vision_start|><|video_pad|><|vision_end|>{% elif 'text' in content %}{{ content['text'] }}{% endif %}{% endfor %}<|im_end|>\n{% endif %}{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"

export const QWEN_IMAGE_SPAN = "<|vision_start|><|image_pad|><|vision_end|>"

export type Render = (messages: ReadonlyArray<Turn>, addGenerationPrompt: boolean) => string

const qwen = new Template(QWEN2_VL_CHAT_TEMPLATE)
/** Renders turns as `processor.apply_chat_template(..., tokenize=False)` would with Qwen2-VL's template. */
export const renderQwen2VL: Render = (messages, addGenerationPrompt) =>
  qwen.render({ messages: [...messages] as Array<Json>, add_generation_prompt: addGenerationPrompt })

export const count = (text: string, needle: string): number => text.split(needle).length - 1
