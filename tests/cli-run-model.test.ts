/**
 * `bun core run --policy model`: the multimodal policy against an OpenAI-compatible server
 * this test starts. The server plays a competent agent for "open the category" — it reads
 * the element list it is sent and clicks the link the task names, then says complete — so
 * the run has passing trajectories made of model calls. Every call is recorded (the
 * screenshot by hash; the server got it as a data: URL), and with the server gone the run
 * replays with 0 divergences.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core } from "./support/cli.ts"

const TASK = "shop-open-category-1"
const tmp = mkdtempSync(join(tmpdir(), "core-cli-run-model-"))
const flags = ["--store", "embedded", "--data-dir", tmp]
const jsonl = (text: string): Array<any> =>
  text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))

interface Seen {
  readonly policy: boolean
  readonly images: number
  readonly dataUrls: number
}
const seen: Array<Seen> = []

const partsOf = (content: unknown): Array<any> => (Array.isArray(content) ? content : [{ type: "text", text: String(content) }])

const server = Bun.serve({
  port: 0,
  async fetch(req) {
    const body = (await req.json()) as { model: string; messages: Array<{ content: unknown }> }
    const parts = body.messages.flatMap((m) => partsOf(m.content))
    const text = parts
      .filter((p) => p.type === "text")
      .map((p) => String(p.text))
      .join("\n")
    const images = parts.filter((p) => p.type === "image_url")
    const policy = text.includes("# Actions taken so far")
    seen.push({
      policy,
      images: images.length,
      dataUrls: images.filter((p) => String(p.image_url?.url).startsWith("data:image/png;base64,")).length
    })
    let answer = "I cannot help with that."
    if (policy) {
      const task = text.split("# Task")[1]?.split("#")[0] ?? ""
      const category = task.match(/'([^']+)'|"([^"]+)"|the (\w+) category/i)
      const wanted = (category?.[1] ?? category?.[2] ?? category?.[3] ?? "").toLowerCase()
      const history = text.split("# Actions taken so far")[1]?.split("# Actions you can take")[0] ?? ""
      const link = text.split("\n").find((l) => /^\[(e\d+)\] link "/.test(l) && l.toLowerCase().includes(`"${wanted}"`))
      answer =
        !history.includes("(none yet)") || link === undefined
          ? JSON.stringify({ thought: "the category page is open", action: { kind: "status", status: "complete" } })
          : JSON.stringify({ thought: `the ${wanted} link`, action: { kind: "click", element: link.match(/^\[(e\d+)\]/)![1] } })
    }
    return Response.json({
      id: `chatcmpl-${seen.length}`,
      object: "chat.completion",
      created: 1764700000,
      model: body.model,
      choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: "stop" }],
      usage: { prompt_tokens: Math.ceil(text.length / 4), completion_tokens: Math.ceil(answer.length / 4), total_tokens: 0 }
    })
  }
})

let metrics: any
beforeAll(async () => {
  const r = await core([
    "run",
    "--tasks",
    TASK,
    "--samples",
    "2",
    "--policy",
    "model",
    "--seed",
    "model-1",
    "--model-base-url",
    `http://127.0.0.1:${server.port}/v1`,
    "--model",
    "fake-gui-agent",
    "--json",
    ...flags
  ])
  if (r.code !== 0) throw new Error(`run failed: ${r.stderr.slice(-3000)}`)
  metrics = JSON.parse(r.stdout)
}, 600_000)
afterAll(() => {
  server.stop(true)
  rmSync(tmp, { recursive: true, force: true })
})

test("the model's rollouts pass, every policy call is recorded with the screenshot by hash", async () => {
  const events = jsonl((await core(["events", "tail", "--no-follow", "--filter", `run.${metrics.run_id}.>`, ...flags])).stdout)
  const recorded = events.filter((e) => e.type === "TrajectoryRecorded" && e.data.trajectoryId.startsWith("r1-"))
  expect(recorded).toHaveLength(2)
  for (const t of recorded) {
    expect(t.data.policy).toBe("fake-gui-agent")
    expect(t.data.steps.map((s: any) => s.action.kind)).toEqual(["click", "status"])
  }
  const verified = events.filter((e) => e.type === "TrajectoryVerified" && e.data.trajectoryId.startsWith("r1-"))
  expect(verified.map((e) => e.data.verdict)).toEqual(["pass", "pass"])
  expect(metrics.verdict_vs_ground_truth.precision).toBe(1)
  const calls = events.filter((e) => e.type === "ModelCalled" && e.data.purpose === "policy")
  expect(calls).toHaveLength(4)
  const policySeen = seen.filter((s) => s.policy)
  expect(policySeen).toHaveLength(4)
  // On the wire the screenshot is a data: URL; in the log only its hash.
  for (const s of policySeen) expect([s.images, s.dataUrls]).toEqual([1, 1])
  for (const c of calls) {
    expect(JSON.stringify(c.data)).not.toContain("base64")
    expect(c.data.requestDigest).toMatch(/^[0-9a-f]{64}$/)
    expect(c.data.prompt.name).toBe("policy")
  }
}, 120_000)

test("with the model server gone, the run replays with 0 divergences", async () => {
  server.stop(true)
  const r = await core(["replay", metrics.run_id, "--json", ...flags])
  expect(JSON.parse(r.stdout).divergences).toEqual([])
  expect(r.code).toBe(0)
}, 300_000)
