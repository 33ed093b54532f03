/**
 * A CORE round on the mobile-web platform: `bun core run --platform mobile-web`
 * records its demos on that platform (chromedriver, Chromium's phone emulation), rolls out
 * and verifies there, and replays with 0 divergences. Three shop tasks keep it short: a
 * link, a purchase through forms, and an answer read off the page.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core } from "./support/cli.ts"

const TASKS = ["shop-open-category-1", "shop-buy-1", "shop-price-of-1"]
const tmp = mkdtempSync(join(tmpdir(), "core-cli-run-mobile-web-"))
const flags = ["--store", "embedded", "--data-dir", tmp]
const jsonl = (text: string): Array<any> =>
  text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
const blob = (hash: string) => readFileSync(join(tmp, "blobs", hash.slice(0, 2), hash))

let metrics: any
let stderr = ""
let events: Array<any> = []
beforeAll(async () => {
  const r = await core([
    "run",
    "--platform",
    "mobile-web",
    "--site",
    "shop",
    "--suite",
    "train",
    "--tasks",
    TASKS.join(","),
    "--rounds",
    "1",
    "--samples",
    "2",
    "--seed",
    "mobile-1",
    "--json",
    ...flags
  ])
  if (r.code !== 0) throw new Error(`run failed: ${r.stderr.slice(-3000)}`)
  metrics = JSON.parse(r.stdout)
  stderr = r.stderr
  events = jsonl((await core(["events", "tail", "--no-follow", ...flags])).stdout)
}, 600_000)
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

test("the demos are recorded on the platform, under their own ids, and the run says where it played", () => {
  const demos = events.filter((e) => e.type === "DemoIngested")
  expect(demos.map((e) => e.data.demoId).sort()).toEqual(TASKS.map((t) => `${t}-mobile-web-script`).sort())
  expect(existsSync(join(tmp, "demos", "mobile-web", "shop", "shop-buy-1"))).toBe(true)
  const started = events.find((e) => e.type === "RunStarted")
  expect(started.data.config["run.platform"]).toBe("mobile-web")
  expect(stderr).toContain("mobile-web sessions (chromedriver, phone emulation)")
  // Every observation was taken on the phone's 412 px screen.
  const first = events.find((e) => e.type === "TrajectoryRecorded")
  const seen = JSON.parse(blob(first.data.steps[0].observation.elements).toString("utf8"))
  expect(seen.viewport.width).toBe(412)
  // The price is answered from the page's text outline, as on the desktop.
  const priceDemo = demos.find((e) => e.data.taskId === "shop-price-of-1")
  expect(priceDemo.data.steps.at(-1).action).toMatchObject({ kind: "answer", text: expect.stringMatching(/^It costs \$[\d,]+\.\d\d\.$/) })
})

test("the round rolls out, verifies and expands with no infrastructure error; its passes are real", () => {
  expect(metrics.tasks).toBe(3)
  expect(metrics.trajectories).toBeGreaterThanOrEqual(6)
  expect(metrics.infra_errors).toBe(0)
  expect(metrics.pass).toBeGreaterThan(0)
  expect(metrics.verdict_vs_ground_truth.precision).toBe(1)
  expect(events.filter((e) => e.type === "PathAdded" && e.data.source.kind === "trajectory").length).toBeGreaterThan(0)
})

test("the mobile-web run replays with 0 divergences", async () => {
  const r = await core(["replay", metrics.run_id, "--json", ...flags])
  const replay = JSON.parse(r.stdout)
  expect(replay.divergences).toEqual([])
  expect(replay.decision_events).toBeGreaterThan(50)
  expect(r.code).toBe(0)
}, 300_000)
