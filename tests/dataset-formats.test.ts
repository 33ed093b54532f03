/**
 * `dataset export --for trl|llama-factory|verl` held to the trainers' own loaders. The run is
 * the replay fixture (tests/fixtures/replay-run, a real logged run) with one round added by
 * libs/domain Datasets.ts from two trajectories with screenshots — the fixture's dpo and
 * rollout records have none — whose page text holds a literal `<image>`. Every export of that
 * run goes through the loaders' checks, ported in tests/support/trainer-loaders.ts; each test
 * is named after the loader file and function whose rule it keeps.
 */
import { beforeAll, describe, expect, test } from "bun:test"
import { parquetMetadata, parquetReadObjects, parquetSchema } from "hyparquet"
import { cpSync, existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core, expectOneLineError, REPO } from "./support/cli.ts"
import {
  applyPreferenceTemplate,
  chatTemplateKeys,
  count,
  datasetAttr,
  isConversational,
  keepsExplicitPrompt,
  prepareMultimodalMessages,
  prmTokenizeRow,
  qwen2vlPluginMessages,
  QWEN_IMAGE_SPAN,
  renderQwen2VL,
  sharegptConvert,
  validateMessages,
  verlBuildMessages
} from "./support/trainer-loaders.ts"
import { appendRound, blobOf as blobIn, isPng, plainLines, png, putImages, supplement } from "./support/dataset-run.ts"

const RUN = "run-mx9cfcfn-0a9e49"
const dir = mkdtempSync(join(tmpdir(), "core-dataset-formats-"))
const store = ["--store", "embedded", "--data-dir", dir]
const out = (...p: Array<string>) => join(dir, "out", ...p)
type Row = Record<string, any>
const jsonl = (path: string): Array<Row> =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Row)

const exportRun = (format: string, extra: ReadonlyArray<string>) =>
  core(["dataset", "export", "--run", RUN, "--format", format, ...extra, ...store])

const blobOf = (path: string) => blobIn(dir, path)

/** The plain export's lines per format, and the verl rows read back. */
const plain: Record<string, Array<Row>> = {}
const verl: Record<string, Array<Row>> = {}

const EXPORTS = [
  ["trl", "sft", "trl/sft.jsonl"],
  ["trl", "dpo", "trl/dpo.jsonl"],
  ["trl", "rollout", "trl/rollout.jsonl"],
  ["llama-factory", "sft", "lf/sft.jsonl"],
  ["llama-factory", "dpo", "lf/dpo.json"],
  ["verl", "sft", "verl/sft.parquet"],
  ["verl", "dpo", "verl/dpo.parquet"]
] as const

beforeAll(async () => {
  cpSync(join(REPO, "tests", "fixtures", "replay-run"), dir, { recursive: true })
  await appendRound(dir, RUN, 2, supplement(await putImages(dir, [png(8, 6, 1), png(8, 6, 2), png(8, 6, 3)])))
  const results = await Promise.all(EXPORTS.map(([t, f, path]) => exportRun(f, ["--for", t, "--out", out(path), "--json"])))
  for (const [i, r] of results.entries()) {
    expect(r.stderr).not.toContain("error")
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ run: RUN, format: EXPORTS[i]![1], for: EXPORTS[i]![0], sealed: true })
  }
  Object.assign(plain, await plainLines(dir, RUN))
  // utf8: false reads an unannotated BYTE_ARRAY as bytes, as pyarrow (and so verl's `datasets`) does.
  for (const f of ["sft", "dpo"])
    verl[f] = (await parquetReadObjects({ file: await Bun.file(out("verl", `${f}.parquet`)).arrayBuffer(), utf8: false })) as Array<Row>
}, 60_000)

test("the run's exports cover records with and without screenshots in every format, and a page's literal <image>", () => {
  expect(plain.sft!.length).toBe(22 + 2)
  expect(plain.dpo!.length).toBe(4 + 1)
  expect(plain.rollout!.length).toBe(10 + 2)
  expect(plain.sft!.some((l) => l.images.length === 0) && plain.sft!.some((l) => l.images.length === 1)).toBe(true)
  expect(plain.dpo!.some((l) => l.images.length === 1)).toBe(true)
  expect(plain.sft!.some((l) => count(JSON.stringify(l.messages), "<image>") > l.images.length)).toBe(true)
})

describe("TRL", () => {
  const sft = () => jsonl(out("trl", "sft.jsonl"))
  const dpo = () => jsonl(out("trl", "dpo.jsonl"))
  const turns = (r: Row): Array<Row> => [...(r.messages ?? r.prompt), ...(r.chosen ?? [])]

  test("data_utils.py is_conversational and apply_chat_template: conversational rows with an accepted key set", () => {
    for (const r of sft()) expect([isConversational(r), chatTemplateKeys(r)]).toEqual([true, "messages"])
    for (const r of dpo()) expect([isConversational(r), chatTemplateKeys(r)]).toEqual([true, "chosen,prompt,rejected"])
    expect(sft().length).toBe(plain.sft!.length)
    expect(dpo().length).toBe(plain.dpo!.length)
  })

  test("data_utils.py prepare_multimodal_messages: typed image parts = images; dpo's only in the prompt", () => {
    for (const [r, p] of sft().map((r, i) => [r, plain.sft![i]!] as const)) {
      expect(r.images).toEqual(p.images)
      expect(() => prepareMultimodalMessages(r.messages, r.images)).not.toThrow()
      for (const m of r.messages) for (const part of m.content) expect(["image", "text"]).toContain(part.type)
    }
    for (const r of dpo()) {
      expect(() => prepareMultimodalMessages(r.prompt, r.images)).not.toThrow()
      expect(() => prepareMultimodalMessages(r.chosen)).not.toThrow()
      expect(() => prepareMultimodalMessages(r.rejected)).not.toThrow()
    }
    // The check itself can fail: one image too many.
    expect(() => prepareMultimodalMessages(sft().find((r) => r.images.length > 0)!.messages, ["a", "b"])).toThrow("does not match")
  })

  test("image paths are relative to the JSONL and name the PNGs beside it", () => {
    for (const r of [...sft(), ...dpo()]) for (const p of r.images) expect(readFileSync(out("trl", p)).equals(blobOf(p))).toBe(true)
    expect(sft().some((r) => r.images.length > 0 && isPng(readFileSync(out("trl", r.images[0]))))).toBe(true)
  })

  test("roles alternate as chat templates expect: system first or not at all, then user/assistant from user", () => {
    const roles = (ms: Array<Row>) => ms.map((m) => m.role).join(" ")
    for (const r of sft()) expect(roles(r.messages)).toMatch(/^(system )?(user assistant)( user assistant)*$/)
    for (const r of dpo()) {
      // apply_chat_template adds the generation prompt only after a user (or tool) turn.
      expect(roles(r.prompt)).toMatch(/^(system )?user( assistant user)*$/)
      expect([roles(r.chosen), roles(r.rejected)]).toEqual(["assistant", "assistant"])
    }
    expect(sft().every((r) => turns(r).length > 0)).toBe(true)
  })

  test("data_utils.py maybe_extract_prompt and apply_chat_template: dpo chosen and rejected share the explicit prompt", () => {
    for (const [r, p] of dpo().map((r, i) => [r, plain.dpo![i]!] as const)) {
      expect(keepsExplicitPrompt(r)).toBe(true)
      expect(r.chosen[0].content.at(-1).text).toBe(p.chosen[0].content)
      expect(r.rejected[0].content.at(-1).text).toBe(p.rejected[0].content)
      const t = applyPreferenceTemplate({ prompt: r.prompt, chosen: r.chosen, rejected: r.rejected }, renderQwen2VL)
      // The shared prefix is the whole prompt with its generation prompt: each completion is its answer alone.
      expect(t.prompt).toBe(renderQwen2VL(r.prompt, true))
      expect(t.chosen).toBe(`${p.chosen[0].content}<|im_end|>\n`)
      expect(t.rejected).toBe(`${p.rejected[0].content}<|im_end|>\n`)
      expect(count(t.prompt, QWEN_IMAGE_SPAN)).toBe(r.images.length)
    }
  })

  test("prm_trainer.py tokenize_row: prompt a string, completions and labels (booleans) of one length, no separator inside a step", () => {
    const rows = jsonl(out("trl", "rollout.jsonl"))
    expect(rows.length).toBe(plain.rollout!.length)
    for (const [r, p] of rows.map((r, i) => [r, plain.rollout![i]!] as const)) {
      expect(Object.keys(r).sort()).toEqual(["completions", "labels", "prompt"])
      expect(typeof r.prompt).toBe("string")
      expect(r.labels.every((l: unknown) => typeof l === "boolean")).toBe(true)
      expect(r.completions.every((c: string) => !c.includes("\n"))).toBe(true)
      expect(r.labels).toEqual(p.steps.map((s: Row) => s.reward > 0 && s.error === null))
      const t = prmTokenizeRow(r as never)
      expect(t.labels.filter((l) => l !== -100).length).toBe(r.labels.length)
      expect(count(t.input, "\n")).toBe(r.completions.length + count(r.prompt, "\n"))
    }
    expect(rows.some((r) => r.labels.includes(true)) && rows.some((r) => r.labels.includes(false))).toBe(true)
    expect(() => prmTokenizeRow({ prompt: "p", completions: ["a", "b"], labels: [true] })).toThrow("zip()")
  })
})

describe("LLaMA-Factory", () => {
  const info = () => JSON.parse(readFileSync(out("lf", "dataset_info.json"), "utf8")) as Record<string, Row>
  const rows = (name: string): Array<Row> => {
    const file = out("lf", info()[name]!.file_name)
    return file.endsWith(".json") ? (JSON.parse(readFileSync(file, "utf8")) as Array<Row>) : jsonl(file)
  }

  test("parser.py DatasetAttr.join: dataset_info.json has an entry per file, sharegpt, with columns every row holds", () => {
    expect(Object.keys(info()).sort()).toEqual(["dpo", "sft"])
    expect(info().sft).toMatchObject({
      file_name: "sft.jsonl",
      formatting: "sharegpt",
      columns: { messages: "messages", images: "images" }
    })
    expect(info().dpo).toMatchObject({ file_name: "dpo.json", ranking: true, columns: { chosen: "chosen", rejected: "rejected" } })
    for (const name of ["sft", "dpo"]) {
      const e = info()[name]!
      expect(e.tags).toEqual({
        role_tag: "role",
        content_tag: "content",
        user_tag: "user",
        assistant_tag: "assistant",
        system_tag: "system"
      })
      for (const r of rows(name)) for (const column of Object.values(e.columns)) expect(r).toHaveProperty(column as string)
    }
    expect(rows("sft").length).toBe(plain.sft!.length)
    expect(rows("dpo").length).toBe(plain.dpo!.length)
  })

  test("converter.py SharegptDatasetConverter: roles alternate (system optional first) and the message count fits; none skipped", () => {
    for (const name of ["sft", "dpo"]) {
      const attr = datasetAttr(info()[name]!)
      for (const r of rows(name)) {
        const c = sharegptConvert(r, attr)
        expect(c.broken).toBeNull()
        expect(c.response.map((m) => m.role)).toEqual(name === "sft" ? ["assistant"] : ["assistant", "assistant"])
        expect(c.system).toBe(r.messages[0].content)
      }
    }
    // The check itself can fail: two user turns in a row are skipped by the loader.
    const [u, a] = rows("sft")[0]!.messages.slice(1)
    expect(sharegptConvert({ messages: [u, u, a, a] }, datasetAttr(info().sft!)).broken).toBe("Invalid role tag")
  })

  test("mm_plugin.py _validate_messages: <image> tokens in prompt and response = images (each side of a pair)", () => {
    for (const name of ["sft", "dpo"]) {
      const attr = datasetAttr(info()[name]!)
      for (const r of rows(name)) {
        const c = sharegptConvert(r, attr)
        if (name === "sft") expect(() => validateMessages([...c.prompt, ...c.response], c.images)).not.toThrow()
        else for (const side of c.response) expect(() => validateMessages([...c.prompt, side], c.images)).not.toThrow()
        expect(c.system).not.toContain("<image>")
      }
    }
    // The page's literal "<image>" was escaped, or it would count as a second image.
    expect(rows("sft").some((r) => JSON.stringify(r.messages).includes("&lt;image&gt;"))).toBe(true)
    expect(() => validateMessages([{ content: "<image><image>" }], ["x"])).toThrow("does not match")
  })

  test("converter.py _find_medias: image paths resolve against dataset_dir (media_dir's default), beside dataset_info.json", () => {
    for (const name of ["sft", "dpo"])
      for (const r of rows(name)) for (const p of r.images) expect(isPng(readFileSync(out("lf", p)))).toBe(true)
  })
})

describe("verl", () => {
  const buffer = (f: string) => Bun.file(out("verl", `${f}.parquet`)).arrayBuffer()

  test("read back with hyparquet: the columns and types examples/data_preprocess/geo3k.py writes and rl_dataset.py reads", async () => {
    for (const f of ["sft", "dpo"]) {
      const tree = parquetSchema(parquetMetadata(await buffer(f)))
      const node = (name: string) => tree.children.find((c) => c.element.name === name)!
      expect(tree.children.map((c) => c.element.name)).toEqual(["data_source", "prompt", "images", "ability", "reward_model", "extra_info"])
      expect(node("data_source").element).toMatchObject({ type: "BYTE_ARRAY", converted_type: "UTF8" })
      expect(node("prompt").element.converted_type).toBe("LIST")
      expect(node("prompt").children[0]!.children[0]!.children.map((c) => c.element.name)).toEqual(["role", "content"])
      const image = node("images").children[0]!.children[0]!.children.map((c) => c.element)
      expect(image.map((e) => [e.name, e.type, e.converted_type])).toEqual([["bytes", "BYTE_ARRAY", undefined]])
      expect(node("reward_model").children.map((c) => c.element.name)).toEqual(["style", "ground_truth"])
      const extra = node("extra_info").children.map((c) => c.element)
      expect(extra.find((e) => e.name === "index")!.type).toBe("INT64")
      expect(extra.map((e) => e.name)).toEqual(expect.arrayContaining(["split", "index", "task_id", "trajectory_ids", "record_id"]))
    }
  })

  test("rl_dataset.py _build_messages: <image> tokens in the prompt = images, each {bytes} of a PNG", () => {
    for (const f of ["sft", "dpo"]) {
      expect(verl[f]!.length).toBe(plain[f]!.length)
      for (const [i, r] of verl[f]!.entries()) {
        expect(() => verlBuildMessages(r as never)).not.toThrow()
        expect(r.images.length).toBe(plain[f]![i]!.images.length)
        for (const [k, image] of r.images.entries()) {
          expect(isPng(image.bytes)).toBe(true)
          expect(Buffer.from(image.bytes).equals(blobOf(plain[f]![i]!.images[k]))).toBe(true)
        }
      }
    }
    expect(() => verlBuildMessages({ prompt: [{ role: "user", content: "no token" }], images: [{ bytes: new Uint8Array() }] })).toThrow(
      "image_offset"
    )
  })

  test("geo3k.py rows: data_source core/<run>, a rule reward with the record's answer, extra_info with split and index", () => {
    for (const f of ["sft", "dpo"]) {
      for (const [i, r] of verl[f]!.entries()) {
        const p = plain[f]![i]!
        expect(r.data_source).toBe(`core/${RUN}`)
        expect(r.ability).toBe("gui-agent")
        const answer = f === "sft" ? p.messages.at(-1).content : p.chosen[0].content
        expect(r.reward_model).toEqual({ style: "rule", ground_truth: answer })
        expect(r.prompt.at(-1).role).toBe("user")
        expect(r.extra_info).toMatchObject({
          split: "train",
          index: BigInt(i),
          record_id: p.record_id,
          task_id: p.task_id,
          trajectory_ids: p.trajectory_ids
        })
        if (f === "dpo") expect(r.extra_info.rejected).toBe(p.rejected[0].content)
      }
    }
  })
})

test("one record of each layout rendered through Qwen2-VL's chat template: one image span per image, and the answer", () => {
  const withImage = (rows: Array<Row>) => rows.find((r) => r.images.length > 0)!
  const check = (text: string, images: number, answer: string) => {
    expect(count(text, QWEN_IMAGE_SPAN)).toBe(images)
    expect(text).toContain(`<|im_start|>assistant\n${answer}<|im_end|>`)
    expect(text).not.toContain("<image>")
  }
  const trlSft = withImage(jsonl(out("trl", "sft.jsonl")))
  check(renderQwen2VL(prepareMultimodalMessages(trlSft.messages, trlSft.images), false), 1, trlSft.messages.at(-1).content[0].text)
  const trlDpo = withImage(jsonl(out("trl", "dpo.jsonl")))
  for (const side of [trlDpo.chosen, trlDpo.rejected])
    check(renderQwen2VL(prepareMultimodalMessages([...trlDpo.prompt, ...side], trlDpo.images), false), 1, side[0].content[0].text)

  const lf = (name: string) =>
    withImage(name === "sft" ? jsonl(out("lf", "sft.jsonl")) : JSON.parse(readFileSync(out("lf", "dpo.json"), "utf8")))
  const lfSft = lf("sft")
  check(renderQwen2VL(qwen2vlPluginMessages(lfSft.messages, lfSft.images), false), 1, lfSft.messages.at(-1).content)
  const lfDpo = lf("dpo")
  for (const side of [lfDpo.chosen, lfDpo.rejected])
    check(renderQwen2VL(qwen2vlPluginMessages([...lfDpo.messages, side], lfDpo.images), false), 1, side.content)

  for (const f of ["sft", "dpo"]) {
    const r = withImage(verl[f]!)
    const answer = r.reward_model.ground_truth
    check(renderQwen2VL([...verlBuildMessages(r as never), { role: "assistant", content: answer }], false), r.images.length, answer)
    expect(renderQwen2VL(verlBuildMessages(r as never), true).endsWith("<|im_start|>assistant\n")).toBe(true)
  }

  // TRL's PRM trainer applies no chat template: its text is the prompt, then each step and the separator.
  const prm = jsonl(out("trl", "rollout.jsonl"))[0]!
  expect(prmTokenizeRow(prm as never).input).toBe(prm.prompt + prm.completions.map((c: string) => `${c}\n`).join(""))
})

test("bad input: one line, non-zero exit, nothing written", async () => {
  const bad = `fmt-bad-${Date.now().toString(36)}`
  // Two user turns in a row: LLaMA-Factory would skip it, templates would raise.
  const body = {
    messages: [
      { role: "user", content: "a" },
      { role: "user", content: "b" },
      { role: "assistant", content: "c" }
    ],
    images: []
  }
  await appendRound(dir, bad, 1, [{ recordId: "f".repeat(64), format: "sft", taskId: "t", trajectoryIds: ["x"], body, blobs: [] }])
  const run = (...a: Array<string>) => core(["dataset", "export", ...a, ...store])
  const [unconvertible, rollout, noOut, ext] = await Promise.all([
    run("--run", bad, "--format", "sft", "--for", "trl", "--out", out("bad", "sft.jsonl")),
    run("--run", RUN, "--format", "rollout", "--for", "verl", "--out", out("bad", "r.parquet")),
    run("--run", RUN, "--format", "sft", "--for", "trl"),
    run("--run", RUN, "--format", "sft", "--for", "llama-factory", "--out", out("bad", "sft.txt"))
  ])
  for (const r of [unconvertible!, rollout!, noOut!, ext!]) expectOneLineError(r, expect)
  expect(unconvertible!.stderr).toContain(`record ${"f".repeat(64)} cannot be written for trl: turn 2 after the system prompt is 'user'`)
  expect(rollout!.stderr).toContain("--for verl has no layout for rollout records")
  expect(rollout!.code).toBe(2)
  expect(noOut!.stderr).toContain("--for trl needs --out")
  expect(ext!.stderr).toContain("--for llama-factory needs --out ending in .json or .jsonl")
  for (const f of ["sft.jsonl", "r.parquet", "sft.txt"]) expect(existsSync(out("bad", f))).toBe(false)
}, 60_000)
