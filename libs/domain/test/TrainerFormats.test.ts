/**
 * Trainer layouts, pure: given a record, when it is converted for a trainer, then the image
 * placeholders number its images, roles alternate, and a record a loader would skip is
 * refused with its reason. The same rules against the loaders' own checks, over a real
 * run: tests/dataset-formats.test.ts.
 */
import { describe, expect, test } from "bun:test"
import { alternationError, placeImages, trainerRow, typedContent, verlRow } from "../mod.ts"
import type { Message, SourceRecord } from "../mod.ts"

const IMAGE = "a".repeat(64)
const record = (format: SourceRecord["format"], body: unknown): SourceRecord => ({
  recordId: "r",
  runId: "run-1",
  round: 1,
  format,
  taskId: "t",
  trajectoryIds: ["x"],
  body
})
const sys: Message = { role: "system", content: "act" }

describe("placeImages", () => {
  test("keeps the first n tokens of user turns, escapes the rest and any outside user turns", () => {
    const placed = placeImages(
      [
        { role: "system", content: "no <image> here" },
        { role: "user", content: "<image>\npage says <image>" }
      ],
      1
    )
    expect(placed).toEqual([
      { role: "system", content: "no &lt;image&gt; here" },
      { role: "user", content: "<image>\npage says &lt;image&gt;" }
    ])
  })

  test("images without tokens go before the first user turn's text; too few tokens is refused", () => {
    expect(placeImages([sys, { role: "user", content: "hi" }], 2)).toEqual([sys, { role: "user", content: "<image><image>hi" }])
    expect(placeImages([{ role: "user", content: "<image>hi" }], 2)).toBe("it has 2 images but only 1 <image> tokens to place them")
    expect(placeImages([sys], 1)).toBe("it has 1 images but no user turn to show them in")
  })
})

test("alternationError: system first or not at all, then user and assistant from user", () => {
  const u: Message = { role: "user", content: "u" }
  const a: Message = { role: "assistant", content: "a" }
  expect(alternationError([sys, u, a], "assistant")).toBeNull()
  expect(alternationError([u, a, u], "user")).toBeNull()
  expect(alternationError([sys, u, u, a], "assistant")).toBe("turn 2 after the system prompt is 'user', not 'assistant'")
  expect(alternationError([u, sys, a], "assistant")).toBe("turn 2 after the system prompt is 'system', not 'assistant'")
  expect(alternationError([sys, u], "assistant")).toBe("its turns do not end with a assistant turn")
})

test("typedContent: each <image> an image part where it stood, empty text dropped", () => {
  expect(typedContent("<image>\nhi")).toEqual([{ type: "image" }, { type: "text", text: "\nhi" }])
  expect(typedContent("a<image>b<image>")).toEqual([
    { type: "text", text: "a" },
    { type: "image" },
    { type: "text", text: "b" },
    { type: "image" }
  ])
})

describe("trainerRow and verlRow", () => {
  const sft = record("sft", {
    messages: [sys, { role: "user", content: "<image>\ngo" }, { role: "assistant", content: "{}" }],
    images: [IMAGE]
  })
  const dpo = record("dpo", {
    prompt: [sys, { role: "user", content: "<image>\ngo" }],
    chosen: [{ role: "assistant", content: "yes" }],
    rejected: [{ role: "assistant", content: "no" }],
    images: [IMAGE]
  })

  test("TRL: typed parts and image paths; dpo's image parts in the prompt only", () => {
    const row = trainerRow("trl", sft, (h) => `images/${h}.png`)
    expect(row).toEqual({
      ok: true,
      images: [IMAGE],
      row: {
        messages: [
          { role: "system", content: [{ type: "text", text: "act" }] },
          { role: "user", content: [{ type: "image" }, { type: "text", text: "\ngo" }] },
          { role: "assistant", content: [{ type: "text", text: "{}" }] }
        ],
        images: [`images/${IMAGE}.png`]
      }
    })
    const pair = trainerRow("trl", dpo, (h) => h)
    expect(pair.ok && pair.row.chosen).toEqual([{ role: "assistant", content: [{ type: "text", text: "yes" }] }])
  })

  test("TRL stepwise supervision: one boolean label per step, true when it earned reward without an error", () => {
    const rollout = record("rollout", {
      instruction: "do it",
      steps: [
        { description: "Click\nthere", reward: 0, error: null },
        { description: "Type", reward: 0.5, error: null },
        { description: "Type again", reward: 0.5, error: "not editable" }
      ],
      images: []
    })
    expect(trainerRow("trl", rollout, (h) => h)).toEqual({
      ok: true,
      images: [],
      row: { prompt: "do it", completions: ["Click there", "Type", "Type again"], labels: [false, true, false] }
    })
  })

  test("LLaMA-Factory: a pair's answers are one assistant turn each, or the record is refused", () => {
    const row = trainerRow("llama-factory", dpo, (h) => h)
    expect(row.ok && row.row).toMatchObject({
      chosen: { role: "assistant", content: "yes" },
      rejected: { role: "assistant", content: "no" }
    })
    const two = record("dpo", {
      ...(dpo.body as object),
      chosen: [
        { role: "assistant", content: "a" },
        { role: "user", content: "b" }
      ]
    })
    expect(trainerRow("llama-factory", two, (h) => h)).toEqual({ ok: false, reason: "its chosen is not exactly one assistant turn" })
  })

  test("verl: the prompt up to the user turn, the answer as the rule's ground truth, ids in extra_info", () => {
    const row = verlRow(sft, 7)
    expect(row.ok && row.row).toEqual({
      data_source: "core/run-1",
      prompt: [sys, { role: "user", content: "<image>\ngo" }],
      images: [IMAGE],
      ability: "gui-agent",
      reward_model: { style: "rule", ground_truth: "{}" },
      extra_info: {
        split: "train",
        index: 7,
        record_id: "r",
        run_id: "run-1",
        round: 1,
        format: "sft",
        task_id: "t",
        trajectory_ids: ["x"]
      }
    })
    expect(verlRow(dpo, 0).ok && (verlRow(dpo, 0) as { row: { extra_info: { rejected?: string } } }).row.extra_info.rejected).toBe("no")
    expect(verlRow(record("rollout", {}), 0)).toEqual({ ok: false, reason: "a rollout record is not a conversation" })
  })
})
