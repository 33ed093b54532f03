/**
 * `bun core run --policy model`: the multimodal policy against an OpenAI-compatible server
 * this test starts. The server plays a competent agent for "open the category" — it reads
 * the element list it is sent and clicks the link the task names, then would say complete,
 * which the episode's ending check (exploration 5) says for it — so the run has passing
 * trajectories made of model calls. Every call is recorded (the
 * screenshot by hash; the server got it as a data: URL), and with the server gone the run
 * replays with 0 divergences.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core } from "./support/cli.ts"
import { fakeAgent } from "./support/fakeAgent.ts"

const TASK = "shop-open-category-1"
const tmp = mkdtempSync(join(tmpdir(), "core-cli-run-model-"))
const flags = ["--store", "embedded", "--data-dir", tmp]
const jsonl = (text: string): Array<any> =>
  text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))

const agent = fakeAgent()
const seen = agent.seen

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
    agent.url,
    "--model",
    "fake-gui-agent",
    "--json",
    ...flags
  ])
  if (r.code !== 0) throw new Error(`run failed: ${r.stderr.slice(-3000)}`)
  metrics = JSON.parse(r.stdout)
}, 600_000)
afterAll(() => {
  agent.stop()
  rmSync(tmp, { recursive: true, force: true })
})

test("the model's rollouts pass, every policy call is recorded with the screenshot by hash", async () => {
  const events = jsonl((await core(["events", "tail", "--no-follow", "--filter", `run.${metrics.run_id}.>`, ...flags])).stdout)
  const recorded = events.filter((e) => e.type === "TrajectoryRecorded" && e.data.trajectoryId.startsWith("r1-"))
  expect(recorded).toHaveLength(2)
  for (const t of recorded) {
    expect(t.data.policy).toBe("fake-gui-agent")
    expect(t.data.steps.map((s: any) => s.action.kind)).toEqual(["click", "status"])
    // Exploration 5: once the click satisfied the graph's path, the episode said complete itself.
    expect(t.data.finished).toEqual({ pathId: expect.stringMatching(/^p-/), step: 1 })
  }
  const verified = events.filter((e) => e.type === "TrajectoryVerified" && e.data.trajectoryId.startsWith("r1-"))
  expect(verified.map((e) => e.data.verdict)).toEqual(["pass", "pass"])
  expect(metrics.verdict_vs_ground_truth.precision).toBe(1)
  // So the model was asked once per episode: for the click.
  const calls = events.filter((e) => e.type === "ModelCalled" && e.data.purpose === "policy")
  expect(calls).toHaveLength(2)
  const policySeen = seen.filter((s) => s.policy)
  expect(policySeen).toHaveLength(2)
  // On the wire the screenshot is a data: URL; in the log only its hash.
  for (const s of policySeen) expect([s.images, s.dataUrls]).toEqual([1, 1])
  for (const c of calls) {
    expect(JSON.stringify(c.data)).not.toContain("base64")
    expect(c.data.requestDigest).toMatch(/^[0-9a-f]{64}$/)
    expect(c.data.prompt.name).toBe("policy")
  }
}, 120_000)

test("with the model server gone, the run replays with 0 divergences", async () => {
  agent.stop()
  const r = await core(["replay", metrics.run_id, "--json", ...flags])
  expect(JSON.parse(r.stdout).divergences).toEqual([])
  expect(r.code).toBe(0)
}, 300_000)
