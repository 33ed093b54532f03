/**
 * Rollout workers on the work queue, against a nats-server of the test's own: the same
 * decisions however the episodes were played (in this process, one worker, three), and
 * the faults a fleet of workers meets — a worker killed mid-episode, the server restarted
 * mid-round, the driver killed and resumed, an app that never starts, a slow episode, a
 * worker of another build, a poison job — a model policy's calls made by a worker, logged by
 * the driver, and a learned policy's model read by a worker from its weights blob. Every run
 * ends replaying with 0 divergences, with each episode recorded exactly once. The ack wait
 * is 3 s and a job is delivered at most twice, so a fault costs seconds.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { BlobStore, JetStreamBlobStore } from "@core/blobstore"
import { JOBS_STREAM, jobSubject, PROTOCOL_VERSION, RESULTS_STREAM, resultSubject, WORKERS_CONSUMER } from "@core/workers"
import { sha256 } from "@core/events"
import { LEARNED_POLICY } from "@core/learner"
import { testServer } from "../libs/eventstore/test/natsServer.ts"
import type { TestServer } from "../libs/eventstore/test/natsServer.ts"
import { fixtureRoot, removeRoot, variant } from "../libs/apps/test/support.ts"
import { core } from "./support/cli.ts"
import { fakeAgent } from "./support/fakeAgent.ts"
import { background, decisionDigest, recorded, runEvents, runIdOf, stopAll, worker } from "./support/queue.ts"
import type { Running } from "./support/queue.ts"

let server: TestServer
let dir: string
let env: Record<string, string>
const running: Array<Running> = []
const start = (r: Running) => (running.push(r), r)

beforeAll(async () => {
  server = await testServer()
  dir = mkdtempSync(join(tmpdir(), "core-workers-"))
  env = {
    CORE_STORE: "nats",
    NATS_URL: server.url,
    CORE_DATA_DIR: dir,
    CORE_WORKERS_ACK_WAIT_MS: "3000",
    CORE_WORKERS_MAX_DELIVERIES: "2"
  }
})
afterAll(async () => {
  await stopAll(running)
  server.dispose()
  rmSync(dir, { recursive: true, force: true })
})

const ROUND = ["--rounds", "1", "--explore-per-task", "0", "--json"]
const ONE = ["run", "--tasks", "forum-upvote-1", "--samples", "2", ...ROUND]
const TWO = ["run", "--tasks", "forum-open-board-1,forum-upvote-1", "--samples", "2", ...ROUND]
const QUEUED = ["--workers", "queue"]

/** A job written by hand, as a driver of another build or a hostile publisher might send it. */
const handMadeJob = (runId: string, o: { readonly protocol?: number; readonly input?: Record<string, unknown> } = {}) => ({
  protocol: o.protocol ?? PROTOCOL_VERSION,
  runId,
  jobId: "r1-s0-forum-upvote-1",
  nonce: "0".repeat(64),
  seed: "0",
  app: { kind: "bundled" },
  platform: "web",
  screenshots: "key",
  setOfMarks: false,
  startTask: "forum-upvote-1",
  input: {
    causationId: "c",
    trajectoryId: "r1-s0-forum-upvote-1",
    taskId: "forum-upvote-1",
    instruction: "Upvote",
    round: 1,
    sample: 0,
    stepBudget: 12,
    policy: { kind: "exploration" },
    ...o.input
  }
})

const observation = { url: null, app: null, title: null, elements: null, aria: null, truncated: false, error: null }

/** A worker's record of one step saying complete, written by hand: what a hostile worker or publisher sends. */
const forgedResult = (
  runId: string,
  jobId: string,
  o: { readonly nonce: string; readonly trajectoryId?: string; readonly screenshot?: string; readonly modelCalls?: ReadonlyArray<unknown> }
) => {
  const trajectoryId = o.trajectoryId ?? jobId
  return {
    protocol: PROTOCOL_VERSION,
    runId,
    jobId,
    nonce: o.nonce,
    worker: "mallory",
    trajectory: {
      trajectoryId,
      taskId: "forum-upvote-1",
      round: 1,
      sample: Number(trajectoryId.split("-")[1]!.slice(1)),
      policy: "exploration-v1",
      initial: { ...observation, screenshot: o.screenshot ?? "0".repeat(64) },
      steps: [{ action: { kind: "status", status: "complete" }, observation: { ...observation, screenshot: null } }],
      outcome: "completed",
      infraError: null,
      attempts: 1
    },
    modelCalls: o.modelCalls ?? [],
    judgement: { success: true, reason: "trust me" }
  }
}

/** A finished run: its id, its events, and replay's verdict on it. */
const finished = async (stdout: string, e: Record<string, string> = env) => {
  const runId = runIdOf(stdout)
  const events = await runEvents(runId, e)
  const replayed = await core(["replay", runId, "--json"], e)
  expect(replayed.code).toBe(0)
  expect(JSON.parse(replayed.stdout).divergences).toEqual([])
  return { runId, events, digest: decisionDigest(events) }
}

const ok = async (args: ReadonlyArray<string>, e: Record<string, string> = env) => {
  const r = await core(args, e)
  if (r.code !== 0) throw new Error(`bun core ${args.join(" ")} exited ${r.code}:\n${r.stderr.slice(-3000)}`)
  return r
}

/** Each episode the run asked for, recorded once. */
const expectOnce = (events: ReadonlyArray<Record<string, any>>, n: number) => {
  const ids = recorded(events)
  expect(ids.length).toBe(n)
  expect(new Set(ids).size).toBe(n)
}

let cleanOne = ""

describe("the same decisions however episodes are played", () => {
  test("2 tasks in this process, through 1 worker and through 3: one decision log", async () => {
    const inProcess = await finished((await ok([...TWO, "--parallel", "2"])).stdout)
    const w1 = start(worker("w1", env))
    const one = await finished((await ok([...TWO, ...QUEUED])).stdout)
    const w2 = start(worker("w2", env))
    const w3 = start(worker("w3", env))
    await Promise.all([w2, w3].map((w) => w.waitFor(/pulling episode jobs/)))
    // `bun core workers` lists the three, each by the name it was given.
    const listed = JSON.parse((await ok(["workers", "--json"])).stdout).workers.map((w: { name: string }) => w.name)
    expect(listed.sort()).toEqual(["w1", "w2", "w3"])
    const three = await ok([...TWO, ...QUEUED])
    const threeRun = await finished(three.stdout)
    await stopAll([w1, w2, w3], "SIGTERM")
    expect([one.digest, threeRun.digest]).toEqual([inProcess.digest, inProcess.digest])
    // Exploration 5's ending check ran on the workers too: an episode it ended is in the logs they match.
    expect(threeRun.events.some((e) => e.type === "TrajectoryRecorded" && e.data.finished !== undefined)).toBe(true)
    expectOnce(threeRun.events, 4)
    // The progress says which worker played how many.
    const shares = three.stderr.match(/workers: (.+) episodes/)?.[1] ?? ""
    const total = [...shares.matchAll(/w\d (\d+)/g)].reduce((n, m) => n + Number(m[1]), 0)
    expect(total).toBe(4)
    // Steps played on workers count in the bar too, as they do in-process.
    const steps = [...three.stderr.matchAll(/trajectories[^\n]*, (\d+) steps/g)].map((m) => Number(m[1]))
    expect(Math.max(0, ...steps)).toBeGreaterThan(0)
    // And each run's metrics are judged as in-process ones: the workers return the app's judgement.
    const judged = JSON.parse((await ok(["metrics", inProcess.runId, "--json"])).stdout).verdict_vs_ground_truth
    expect(JSON.parse(three.stdout).verdict_vs_ground_truth).toEqual(judged)
    // Judged at all: a predicted pass or a positive by the app's checker (which of the two depends on the draws).
    expect(judged.precision ?? judged.recall).not.toBeNull()
    cleanOne = (await finished((await ok([...ONE, "--parallel", "2"])).stdout)).digest
  }, 240_000)
})

describe("faults", () => {
  test("a worker SIGKILLed mid-episode: its job is played again elsewhere, recorded once", async () => {
    const doomed = start(worker("doomed", env))
    const driver = start(background([...ONE, ...QUEUED], env))
    const line = await doomed.waitFor(/playing (\S+) of run/)
    const job = line.match(/playing (\S+) of run/)![1]!
    doomed.proc.kill("SIGKILL")
    const spare = start(worker("spare", env))
    expect(await driver.proc.exited).toBe(0)
    // The job came back after the ack wait, to the worker that was left.
    await spare.waitFor(new RegExp(`playing ${job} of run \\S+ \\(delivery 2\\)`), 1000)
    const run = await finished(await driver.stdout)
    expectOnce(run.events, 2)
    expect(run.digest).toBe(cleanOne)
    await stopAll([spare], "SIGTERM")
  }, 120_000)

  test("the NATS server killed and restarted mid-round: the run finishes with nothing lost or doubled", async () => {
    const w = start(worker("steady", env))
    const driver = start(background([...ONE, ...QUEUED], env))
    await w.waitFor(/playing \S+ of run/)
    await server.stop()
    await Bun.sleep(1500)
    await server.start()
    expect(await driver.proc.exited).toBe(0)
    const run = await finished(await driver.stdout)
    expectOnce(run.events, 2)
    expect(run.digest).toBe(cleanOne)
    await stopAll([w], "SIGTERM")
  }, 150_000)

  test("the driver SIGKILLed: run --resume re-attaches to the jobs in flight and plays none twice", async () => {
    const w = start(worker("resumer", env))
    const driver = start(background([...ONE, ...QUEUED], env))
    const runId = (await driver.waitFor(/run (run-[a-z0-9-]+): \d+ tasks?\b/)).match(/run (run-[a-z0-9-]+): \d+ tasks?\b/)![1]!
    await w.waitFor(/playing \S+ of run/)
    driver.proc.kill("SIGKILL")
    await driver.proc.exited
    // While it is away, results no queued job asked for: one whose model call names the task's stream (it once ended
    // the run with exit 70, and every resume after it), one for the other sample. Neither carries its job's nonce.
    const nc = await connect({ servers: server.url })
    const injected = { type: "ModelCalled", stream: `run.${runId}.task.forum-upvote-1`, runId, data: { callIndex: 0 } }
    for (const jobId of ["r1-s0-forum-upvote-1", "r1-s1-forum-upvote-1"])
      nc.publish(resultSubject(runId, jobId), JSON.stringify(forgedResult(runId, jobId, { nonce: "f".repeat(64), modelCalls: [injected] })))
    await nc.flush()
    await nc.close()
    const resumed = await ok(["run", "--resume", runId, ...QUEUED, "--json"])
    const run = await finished(resumed.stdout)
    expectOnce(run.events, 2)
    expect(run.digest).toBe(cleanOne)
    expect(resumed.stderr).toContain(
      "workers: ignored mallory's result for r1-s1-forum-upvote-1: it does not carry the nonce of a job this run queued"
    )
    // Every job was played once: the resumed driver waited for the one in flight.
    const played = [...w.stderr().matchAll(/playing (\S+) of run/g)].map((m) => m[1])
    expect(played.length).toBe(new Set(played).size)
    await stopAll([w], "SIGTERM")
  }, 150_000)

  test("an episode longer than the ack wait, with heartbeats: never delivered again", async () => {
    const fast = { ...env, CORE_WORKERS_ACK_WAIT_MS: "400" }
    const slow = start(worker("slow", fast))
    const idle = start(worker("idle", fast))
    const driver = start(background([...ONE, ...QUEUED], fast))
    const either = (re: RegExp) => Promise.any([slow.waitFor(re), idle.waitFor(re)])
    const job = (await either(/playing (\S+) of run/)).match(/playing (\S+)/)![1]!
    const began = Date.now()
    await either(new RegExp(`: ${job} (completed|budget-exhausted|infra-error)$`))
    // The premise, not a speed target: this episode outlasted the ack wait, so only heartbeats kept it.
    expect(Date.now() - began).toBeGreaterThan(400)
    expect(await driver.proc.exited).toBe(0)
    expect(`${slow.stderr()}${idle.stderr()}`).not.toContain("(delivery 2)")
    const run = await finished(await driver.stdout, fast)
    expectOnce(run.events, 2)
    expect(run.digest).toBe(cleanOne)
    await stopAll([slow, idle], "SIGTERM")
  }, 120_000)

  test("a job no worker can play (the app's start command exits there): an infra-error after 2 deliveries, and the run goes on", async () => {
    const root = fixtureRoot("workers")
    try {
      // The pack is the same on both sides; only the worker's machine lacks what the start needs.
      const pack = variant(root, "gated", (c) => (c.instance.start = ["bun", "gate.ts", "{port}"]), {
        files: {
          "gate.ts": `import { existsSync } from "node:fs"
import { join } from "node:path"
if (existsSync(join(process.env.TMPDIR ?? "/tmp", "no-app-here"))) {
  console.error("boom: this machine cannot run the app")
  process.exit(3)
}
await import("../server.ts")
`,
          // A demo that ends as a demo must, with the task's claim.
          "demos/fw-open-1.steps.json": JSON.stringify({
            version: 1,
            steps: [
              { kind: "click", target: { role: "link", name: "First" } },
              { kind: "status", status: "complete" }
            ]
          })
        }
      })
      const broken = mkdtempSync(join(tmpdir(), "core-broken-machine-"))
      writeFileSync(join(broken, "no-app-here"), "")
      const w = start(worker("broken", { ...env, TMPDIR: broken }, ["--app", pack]))
      // The test packs' evaluate passes answers only, and this demo ends with a claim: its judgement is not what is tested.
      const r = await ok(["run", "--app", pack, "--tasks", "fw-open-1", "--samples", "2", "--no-judge", ...ROUND, ...QUEUED])
      expect(JSON.parse(r.stdout).infra_errors).toBe(2)
      const run = await finished(r.stdout)
      expectOnce(run.events, 2)
      const reasons = run.events.filter((e) => e.type === "TrajectoryRecorded").map((e) => e.data.infraError as string)
      expect(reasons.every((x) => /start exited with code 3/.test(x))).toBe(true)
      expect(w.stderr()).toContain("(delivery 2)")
      await stopAll([w], "SIGTERM")
      rmSync(broken, { recursive: true, force: true })
    } finally {
      removeRoot(root)
    }
  }, 150_000)

  test("a worker of another build refuses a job of a protocol it does not speak, in one line", async () => {
    const w = start(worker("old", env))
    await w.waitFor(/pulling episode jobs/)
    const nc = await connect({ servers: server.url })
    const job = handMadeJob("run-future", { protocol: PROTOCOL_VERSION + 1 })
    await nc.publish(jobSubject("run-future", job.jobId), JSON.stringify(job))
    await nc.flush()
    const line = await w.waitFor(/refused job r1-s0-forum-upvote-1 of run run-future/, 20_000)
    expect(line).toContain(`speaks work-queue protocol ${PROTOCOL_VERSION}, the job ${PROTOCOL_VERSION + 1}`)
    expect(w.stderr()).not.toContain("playing r1-s0-forum-upvote-1 of run run-future")
    await nc.close()
    await stopAll([w], "SIGTERM")
  }, 60_000)

  test("poison jobs (a retrieval model that is a PNG, a learned model that is another JSON) are dropped in one line; the 3 workers that could pull them all go on", async () => {
    const ws = ["p1", "p2", "p3"].map((n) => start(worker(n, env)))
    await Promise.all(ws.map((w) => w.waitFor(/pulling episode jobs/)))
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0xff, 0xfe])
    const [hash, other] = await Effect.runPromise(
      Effect.gen(function* () {
        const blobs = yield* BlobStore
        return [yield* blobs.put(png), yield* blobs.put(new TextEncoder().encode('{"version":"retrieval-v1"}'))] as const
      }).pipe(Effect.provide(JetStreamBlobStore.layer({ url: server.url })))
    )
    const nc = await connect({ servers: server.url })
    const job = handMadeJob("run-poison", { input: { policy: { kind: "embedded" }, retrieval: hash } })
    const learned = handMadeJob("run-poison-learned", { input: { policy: { kind: "learned" }, learned: other } })
    await nc.publish(jobSubject("run-poison", job.jobId), JSON.stringify(job))
    await nc.publish(jobSubject("run-poison-learned", learned.jobId), JSON.stringify(learned))
    await nc.flush()
    await nc.close()
    try {
      const dropped = await Promise.any(ws.map((w) => w.waitFor(/dropped job r1-s0-forum-upvote-1 of run run-poison:/, 30_000)))
      expect(dropped).toContain(`its retrieval model (blob ${hash.slice(0, 12)}) is not one: not JSON`)
      const droppedLearned = await Promise.any(
        ws.map((w) => w.waitFor(/dropped job r1-s0-forum-upvote-1 of run run-poison-learned/, 30_000))
      )
      expect(droppedLearned).toContain(
        `its learned model (blob ${other.slice(0, 12)}) is not one: not a model of the learner (learner-v1, learner-v2)`
      )
      // Terminated, not handed back (on a slow machine the ack wait may pass first and another worker drop it too); none has exited.
      await Bun.sleep(4_000)
      const said = ws.map((w) => w.stderr()).join("")
      expect(said).not.toMatch(/job r1-s0-forum-upvote-1 handed back/)
      expect(said).not.toMatch(/internal:/)
      expect(ws.map((w) => w.proc.exitCode)).toEqual([null, null, null])
      // And they still play: a run through them finishes.
      const r = await ok([...ONE, ...QUEUED])
      expectOnce((await finished(r.stdout)).events, 2)
    } finally {
      await stopAll(ws, "SIGTERM")
    }
  }, 120_000)

  test("forged results: without their job's nonce (early, or an older run's under this run's id) dropped in one line; with it, refused by the replay as an infra-error that says why", async () => {
    const nc = await connect({ servers: server.url })
    const jsm = await jetstreamManager(nc)
    // An older run's stored result, to be republished under the new run's id.
    const last = (await jsm.streams.info(RESULTS_STREAM)).state.last_seq
    const stored = await jsm.streams.getMessage(RESULTS_STREAM, { seq: last })
    if (stored === null) throw new Error("no older result in the results stream: run this file whole")
    const older = JSON.parse(new TextDecoder().decode(stored.data))
    const driver = start(background([...ONE, ...QUEUED], env))
    const runId = (await driver.waitFor(/run (run-[a-z0-9-]+): \d+ tasks?\b/)).match(/run (run-[a-z0-9-]+): \d+ tasks?\b/)![1]!
    const js = jetstream(nc)
    // Published first under the ids a job would have had without a nonce: they must neither be taken nor keep the real result out.
    await js.publish(
      resultSubject(runId, "r1-s0-forum-upvote-1"),
      JSON.stringify(forgedResult(runId, "r1-s0-forum-upvote-1", { nonce: "e".repeat(64) })),
      {
        msgID: `${runId}:r1-s0-forum-upvote-1`
      }
    )
    const replayed = { ...older, runId, jobId: "r1-s1-forum-upvote-1", worker: "replayer" }
    replayed.trajectory = { ...older.trajectory, trajectoryId: "r1-s1-forum-upvote-1", taskId: "forum-upvote-1", sample: 1 }
    await js.publish(resultSubject(runId, "r1-s1-forum-upvote-1"), JSON.stringify(replayed))
    // Then as a worker that pulled this run's two jobs: it knows their nonces, and forges the records.
    const consumer = await js.consumers.get(JOBS_STREAM, WORKERS_CONSUMER)
    const jobs = new Map<string, { nonce: string }>()
    while (jobs.size < 2) {
      const m = await consumer.next({ expires: 30_000 })
      if (m === null) throw new Error("the driver queued no job within 30 s")
      const job = JSON.parse(new TextDecoder().decode(m.data))
      if (job.runId === runId) jobs.set(job.jobId, job)
      m.term()
    }
    // One names a screenshot the store never had; the other is another job's record filed under this one.
    for (const [jobId, o] of [
      ["r1-s0-forum-upvote-1", { screenshot: "0".repeat(64) }],
      ["r1-s1-forum-upvote-1", { trajectoryId: "r1-s0-forum-upvote-1", screenshot: "1".repeat(64) }]
    ] as const)
      await js.publish(resultSubject(runId, jobId), JSON.stringify(forgedResult(runId, jobId, { nonce: jobs.get(jobId)!.nonce, ...o })), {
        msgID: `${runId}:${jobId}:${sha256(jobs.get(jobId)!.nonce).slice(0, 16)}`
      })
    await nc.close()
    expect(await driver.proc.exited).toBe(0)
    const run = await finished(await driver.stdout)
    expectOnce(run.events, 2)
    const why = run.events.filter((e) => e.type === "TrajectoryRecorded").map((e) => e.data.infraError as string)
    expect(why[0]).toMatch(/^worker mallory's record refused: replaying it here failed: .*not found/)
    expect(why[1]).toBe("worker mallory's record refused: it is another job's record")
    const said = driver.stderr()
    expect(said).toContain("workers: refused mallory's record of r1-s0-forum-upvote-1")
    expect(said).toContain(
      "workers: ignored mallory's result for r1-s0-forum-upvote-1: it does not carry the nonce of a job this run queued"
    )
    expect(said).toContain(
      "workers: ignored replayer's result for r1-s1-forum-upvote-1: it does not carry the nonce of a job this run queued"
    )
  }, 90_000)

  test("distributed mode refuses a store other machines cannot share, in one line", async () => {
    const r = await core([...ONE, ...QUEUED, "--store", "embedded"], env)
    expect(r.code).not.toBe(0)
    expect(r.stderr.split("\n").filter((l) => l.startsWith("error:"))).toHaveLength(1)
    expect(r.stderr).toContain("--store nats")
  }, 60_000)
})

describe("a model policy through a worker", () => {
  test("the worker calls the model server it was started with; the driver logs the calls, and the run replays without the server", async () => {
    const agent = fakeAgent()
    try {
      // The worker reaches the server by its own flag: the job names the model, never where it is served.
      const w = start(worker("modeler", env, ["--model-base-url", agent.url]))
      const r = await ok([
        "run",
        "--tasks",
        "shop-open-category-1",
        "--samples",
        "2",
        "--policy",
        "model",
        "--model-base-url",
        agent.url,
        "--model",
        "fake-gui-agent",
        ...ROUND,
        ...QUEUED
      ])
      const runId = runIdOf(r.stdout)
      const events = await runEvents(runId, env)
      expectOnce(events, 2)
      const verdicts = events.filter((e) => e.type === "TrajectoryVerified").map((e) => e.data.verdict)
      expect(verdicts).toContain("pass")
      expect(w.stderr()).toMatch(/playing r1-s0-shop-open-category-1 of run/)
      const calls = events.filter((e) => e.type === "ModelCalled" && e.data.purpose === "policy")
      expect(calls.length).toBeGreaterThan(0)
      expect(calls.length).toBe(agent.seen.filter((s) => s.policy).length)
      // Each call is stored only after the worker's record of its episode: the driver appended it, not the worker.
      const episodeOf = new Map(events.filter((e) => e.type === "TrajectoryRecorded").map((e) => [e.causationId, e.data.trajectoryId]))
      const nc = await connect({ servers: server.url })
      try {
        const jsm = await jetstreamManager(nc)
        const storedAt = async (stream: string, q: { seq: number } | { last_by_subj: string }) =>
          (await jsm.streams.getMessage(stream, q))!.time.getTime()
        for (const c of calls) {
          const result = await storedAt(RESULTS_STREAM, { last_by_subj: resultSubject(runId, episodeOf.get(c.causationId)) })
          expect(await storedAt("CORE", { seq: c.position })).toBeGreaterThanOrEqual(result)
        }
      } finally {
        await nc.close()
      }
      await stopAll([w], "SIGTERM")
      agent.stop()
      await finished(r.stdout)
    } finally {
      agent.stop()
    }
  }, 90_000)
})

describe("a learned policy through a worker", () => {
  test("the worker reads the model of each round from its weights blob: the same decisions as in this process", async () => {
    const LEARNED = [
      "run",
      "--tasks",
      "forum-open-board-1",
      "--samples",
      "1",
      "--rounds",
      "2",
      ...["--explore-per-task", "0", "--expand-per-task", "0", "--extrapolate-per-task", "0"],
      ...["--policy", "learned", "--seed", "workers-learned", "--json"]
    ]
    const inProcess = await finished((await ok(LEARNED)).stdout)
    const w = start(worker("learner", env))
    const queued = await finished((await ok([...LEARNED, ...QUEUED])).stdout)
    expect(w.stderr()).toMatch(/playing r2-s0-forum-open-board-1 of run/)
    await stopAll([w], "SIGTERM")
    expect(queued.digest).toBe(inProcess.digest)
    expectOnce(queued.events, 2)
    const policies = queued.events.filter((e) => e.type === "TrajectoryRecorded").map((e) => e.data.policy)
    expect(policies).toEqual([LEARNED_POLICY, LEARNED_POLICY])
    // Round 2 played with round 1's model, which the job named by the weights blob its PolicyTrained names.
    expect(queued.events.filter((e) => e.type === "PolicyTrained").every((e) => typeof e.data.weights === "string")).toBe(true)
  }, 120_000)
})
