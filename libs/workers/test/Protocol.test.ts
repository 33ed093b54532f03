/**
 * The work queue's protocol, table-driven: which jobs a worker refuses and why, in one
 * line; what decodes as a job or a result and what does not; subjects any task id can use.
 */
import { describe, expect, test } from "bun:test"
import { decodeJob, decodePresence, decodeResult, jobSubject, printableName, PROTOCOL_VERSION, refusal, resultSubject } from "../mod.ts"
import type { EpisodeJob, JobApp } from "../mod.ts"

const PACK = "a".repeat(64)
const OTHER = "b".repeat(64)

const job = (over: Partial<EpisodeJob> = {}): EpisodeJob => ({
  protocol: PROTOCOL_VERSION,
  runId: "run-1",
  jobId: "r1-s0-t1",
  nonce: "c".repeat(64),
  seed: "0",
  app: { kind: "bundled" },
  platform: "web",
  screenshots: "key",
  setOfMarks: false,
  startTask: "t1",
  input: {
    causationId: "c1",
    trajectoryId: "r1-s0-t1",
    taskId: "t1",
    instruction: "Open the Kitchen category page.",
    round: 1,
    sample: 0,
    stepBudget: 12,
    policy: { kind: "exploration" }
  },
  ...over
})

describe("refusal: which jobs a worker plays", () => {
  const bundled: JobApp = { kind: "bundled" }
  const pack: JobApp = { kind: "pack", name: "wiki", digest: PACK }
  const model = job({ input: { ...job().input, policy: { kind: "model", model: "qwen-vl", temperature: 0, topP: 1 } } })
  const cases: ReadonlyArray<[name: string, j: EpisodeJob, served: JobApp, refused: RegExp | null, modelServer?: boolean]> = [
    ["a bundled job on a bundled worker", job(), bundled, null],
    ["a job of the pack it holds", job({ app: pack }), pack, null],
    [
      "another build's job",
      job({ protocol: PROTOCOL_VERSION + 1 }),
      bundled,
      new RegExp(`speaks work-queue protocol ${PROTOCOL_VERSION}, the job ${PROTOCOL_VERSION + 1}`)
    ],
    ["a pack job on a bundled worker", job({ app: pack }), bundled, /start the worker with --app/],
    ["a bundled job on a pack worker", job(), pack, /serves a pack/],
    [
      "the same pack name with another digest",
      job({ app: { kind: "pack", name: "wiki", digest: OTHER } }),
      pack,
      /digest bbbbbbbbbbbb, this worker's aaaaaaaaaaaa/
    ],
    ["a model policy's job on a worker with a model server", model, bundled, null],
    [
      "a model policy's job on a worker without one",
      model,
      bundled,
      /calls the model qwen-vl; start the worker with --model-base-url/,
      false
    ],
    ["an exploration job on a worker without a model server", job(), bundled, null, false]
  ]
  for (const [name, j, served, refused, modelServer = true] of cases) {
    test(name, () => {
      const r = refusal(j, served, modelServer)
      if (refused === null) expect(r).toBeNull()
      else {
        expect(r).toMatch(refused)
        expect(r).not.toContain("\n")
      }
    })
  }
})

describe("decoding what arrives", () => {
  test("a job round-trips through JSON; a job with a bad field is refused in one line", () => {
    expect(decodeJob(JSON.parse(JSON.stringify(job())))).toEqual({ ok: true, value: job() })
    for (const bad of [
      { ...job(), runId: "run.1" },
      { ...job(), jobId: "x > y" },
      { ...job(), input: { ...job().input, stepBudget: 0 } },
      { ...job(), app: { kind: "pack", name: "wiki", digest: "short" } },
      { ...job(), input: { ...job().input, policy: { kind: "oracle" } } },
      "not a job"
    ]) {
      const d = decodeJob(bad)
      expect(d.ok).toBe(false)
      if (!d.ok) expect(d.reason).not.toContain("\n")
    }
  })

  test("a learned job carries its model by the weights blob's hash; anything else there is refused", () => {
    const learned = job({ input: { ...job().input, policy: { kind: "learned" }, learned: "d".repeat(64) } })
    expect(decodeJob(JSON.parse(JSON.stringify(learned)))).toEqual({ ok: true, value: learned })
    const before = job({ input: { ...job().input, policy: { kind: "learned" }, learned: null } })
    expect(decodeJob(JSON.parse(JSON.stringify(before)))).toEqual({ ok: true, value: before })
    for (const bad of ["sha256:" + "d".repeat(64), "d".repeat(63), 7]) {
      const d = decodeJob({ ...learned, input: { ...learned.input, learned: bad } })
      expect(d.ok).toBe(false)
      if (!d.ok) expect(d.reason).not.toContain("\n")
    }
  })

  test("an exploration-5 job carries the check that ends its episode, and it round-trips whole", () => {
    const source = { kind: "demo" as const, id: "d1" }
    const end = {
      graph: {
        taskId: "t1",
        nodes: [
          {
            nodeId: "n-1",
            lfId: "f".repeat(64),
            description: "Set the task's status as 'complete'.",
            semanticKey: { actionKind: "status" as const, role: null, name: null, value: "complete", urlPattern: "^/kitchen$" },
            how: "demo" as const,
            source
          }
        ],
        paths: [
          { pathId: "p-1", nodeIds: ["n-1"], source },
          { pathId: "p-2", nodeIds: ["n-1"], source, evidence: "goal-state" as const }
        ]
      },
      labelFunctions: [{ lfId: "f".repeat(64), code: "function labelFunction(t) { return -1 }" }],
      dataRules: "9" as const
    }
    const checked = job({ input: { ...job().input, exploration: "5", end } })
    expect(decodeJob(JSON.parse(JSON.stringify(checked)))).toEqual({ ok: true, value: checked })
    const broken = { ...checked, input: { ...checked.input, end: { ...end, dataRules: "99" } } }
    expect(decodeJob(broken).ok).toBe(false)
  })

  test("a result must carry a whole trajectory record", () => {
    const base = {
      protocol: PROTOCOL_VERSION,
      runId: "run-1",
      jobId: "r1-s0-t1",
      nonce: "c".repeat(64),
      worker: "w1",
      modelCalls: [],
      judgement: null
    }
    expect(decodeResult({ ...base, trajectory: { trajectoryId: "r1-s0-t1" } }).ok).toBe(false)
    const trajectory = {
      trajectoryId: "r1-s0-t1",
      taskId: "t1",
      round: 1,
      sample: 0,
      policy: "exploration-v1",
      initial: { url: null, app: null, title: null, screenshot: null, elements: null, aria: null, truncated: false, error: "x" },
      steps: [],
      outcome: "infra-error",
      infraError: "x",
      attempts: 3
    }
    expect(decodeResult({ ...base, trajectory }).ok).toBe(true)
    // Without its job's nonce, or with a nonce that is not one, a result does not decode at all.
    const { nonce: _, ...bare } = base
    expect(decodeResult({ ...bare, trajectory }).ok).toBe(false)
    expect(decodeResult({ ...base, nonce: "0", trajectory }).ok).toBe(false)
    // A name from another machine reaches terminals and logs without its escapes.
    const hostile = decodeResult({ ...base, worker: "\u001b[2J\u001b]0;owned\u0007w1\u202e\u0085", trajectory })
    expect(hostile.ok && hostile.value.worker).toBe("[2J]0;ownedw1")
  })

  test("a presence's name is printable: no control or format characters, at most 100 characters", () => {
    const presence = { host: "h", pid: 1, protocol: PROTOCOL_VERSION, concurrency: 1, holding: [], done: 0, since: "s", at: "a" }
    const decoded = decodePresence({ ...presence, name: `\u001b[31mred\u001b[0m${"x".repeat(200)}` })
    expect(decoded.ok && decoded.value.name).toBe(`[31mred[0m${"x".repeat(100 - "[31mred[0m".length)}`)
    expect(printableName("plain-worker-1")).toBe("plain-worker-1")
  })
})

test("subjects: one token per job whatever its id, jobs and results apart", () => {
  const s = jobSubject("run-1", "r1-s0-shop.cart 1")
  expect(s).toMatch(/^coreq\.jobs\.run-1\.[0-9a-f]{24}$/)
  expect(resultSubject("run-1", "r1-s0-shop.cart 1").split(".").at(-1)).toBe(s.split(".").at(-1))
})
