/**
 * Failure-driven task exploration by a model (docs/method.md, "Extrapolation"): `bun core run` with a model
 * server relabels the failures no template explains. The server this test starts answers
 * the "relabel" prompt — its first answer INVALID (the reference's rule refuses it), the
 * next ones an intent read off the steps it was shown — and nothing useful to the label
 * inference prompts (the embedded synthesizer takes over there). The run's log then holds
 * the refusal and the new task with its prompt's digest and model call, and with the
 * server gone the run replays with 0 divergences.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { readFileSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sha256 } from "@core/events"
import { core } from "./support/cli.ts"
import { chatServer } from "./support/chatServer.ts"

const TASK = "forum-comment-1"
const tmp = mkdtempSync(join(tmpdir(), "core-cli-run-relabel-"))
const flags = ["--store", "embedded", "--data-dir", tmp]
const jsonl = (text: string): Array<any> =>
  text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
const relabelDigest = sha256(readFileSync(join(import.meta.dir, "../libs/models/prompts/relabel.v1.md"), "utf8"))

const relabelPrompts: Array<string> = []
const server = chatServer(({ text }) => {
  if (!text.includes("You label what a GUI agent's actions actually did.")) return "I cannot help with that."
  relabelPrompts.push(text)
  // The last page the steps list, as a person would name where the agent ended up.
  const pages = [...text.matchAll(/\(on (\/\S*?)(?: → (\/\S*?))?\)$/gm)].map((m) => m[2] ?? m[1]!)
  const path = (pages.at(-1) ?? "/").split("?")[0]
  return relabelPrompts.length === 1 ? "INVALID" : `The agent browsed.\nIntent: Open the forum page ${path} and stay on it.`
})

let metrics: any
let events: Array<any> = []
beforeAll(async () => {
  const r = await core([
    "run",
    "--tasks",
    TASK,
    "--samples",
    "3",
    "--explore-per-task",
    "0",
    "--expand-per-task",
    "0",
    "--seed",
    "relabel-1",
    "--model-base-url",
    server.url,
    "--model",
    "fake-relabeller",
    "--json",
    ...flags
  ])
  if (r.code !== 0) throw new Error(`run failed: ${r.stderr.slice(-3000)}`)
  metrics = JSON.parse(r.stdout)
  events = jsonl((await core(["events", "tail", "--no-follow", "--filter", `run.${metrics.run_id}.>`, ...flags])).stdout)
}, 600_000)
afterAll(() => {
  server.stop()
  rmSync(tmp, { recursive: true, force: true })
})

test("the failures are relabelled by the model: INVALID is refused by rule, an intent becomes a task with its prompt and call in the lineage", () => {
  const failures = events.filter((e) => e.type === "TrajectoryVerified" && e.data.verdict !== "pass")
  expect(failures.length).toBeGreaterThanOrEqual(2)
  const calls = events.filter((e) => e.type === "ModelCalled" && e.data.purpose === "relabel")
  // At most two asks per parent task and round.
  expect(calls).toHaveLength(2)
  expect(relabelPrompts).toHaveLength(2)
  for (const c of calls) expect(c.data.prompt).toEqual({ name: "relabel", version: "1", digest: relabelDigest })
  const callIds = calls.map((c) => c.id)
  // The prompt shows the task given and the steps taken, each with its page.
  expect(relabelPrompts[0]).toContain('Post the comment "Great write-up, bookmarked."')
  expect(relabelPrompts[0]).toMatch(/# What it did\n\n1\. .+ \(on \/forum\//)

  const refusals = events.filter((e) => e.type === "TaskExtrapolationRejected")
  expect(refusals.map((e) => [e.data.rule, e.data.instruction, e.data.closestTaskId, e.data.modelCallIds])).toEqual([
    ["invalid", "INVALID", null, [callIds[0]]]
  ])

  const made = events.filter((e) => e.type === "TaskExtrapolated")
  expect(made).toHaveLength(1)
  const x = made[0]!.data
  expect(x.generator).toBe("failure-relabel")
  expect(x.instruction).toMatch(/^Open the forum page \/forum\/\S* and stay on it\.$/)
  expect(x.template).toBeNull()
  expect(x.lineage).toMatchObject({
    parentTaskId: TASK,
    generatorVersion: "model-relabel-v1",
    promptDigest: relabelDigest,
    modelCallIds: [callIds[1]]
  })
  expect(failures.map((e) => e.data.trajectoryId)).toContain(x.pseudoDemoTrajectoryId)
  // The new task has label functions from its pseudo-demo and a path to be verified against.
  expect(events.filter((e) => e.type === "LabelFunctionInferred" && e.data.taskId === x.newTaskId).length).toBeGreaterThan(0)
  expect(events.filter((e) => e.type === "PathAdded" && e.data.taskId === x.newTaskId)).toHaveLength(1)
  expect(events.find((e) => e.type === "RoundExtrapolated" && e.data.round === 1)!.data).toEqual({
    round: 1,
    newTaskIds: [x.newTaskId],
    refused: 1
  })
})

test("with the model server gone, the run replays with 0 divergences", async () => {
  server.stop()
  const r = await core(["replay", metrics.run_id, "--json", ...flags])
  expect(JSON.parse(r.stdout).divergences).toEqual([])
  expect(r.code).toBe(0)
}, 300_000)
