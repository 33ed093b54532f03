/**
 * The console's pages on a real logged run, the replay fixture (`tests/fixtures/replay-run`,
 * run run-mx9cfcfn-0a9e49), each page function called directly with read models projected
 * into `sqlite::memory:`: every page renders for the run's tasks, trajectories, demos and
 * label functions; the graph's SVG nodes are the read model's; the trajectory page embeds
 * exactly `auditTrajectoryOf` (the browser test holds the pages against the CLI itself); the
 * what-if counts the flips `whatIf` counts; hostile text from a page or a task is escaped;
 * unknown ids are not found.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import type { Scope } from "effect"
import { BlobStore, DirectoryBlobStore } from "@core/blobstore"
import { distinctPaths } from "@core/domain"
import { makeEvent, TaskRegistered, TrajectoryRecorded } from "@core/events"
import type { CoreEvent } from "@core/events"
import { EmbeddedStore, EventStore } from "@core/eventstore"
import { auditTrajectoryOf, graphsOf, labelSandbox, whatIf } from "@core/pipeline"
import { migrate, openReadModels, runProjector } from "@core/projections"
import type { ReadModels } from "@core/projections"
import { readRunLog } from "@core/engine"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { graphSvg } from "../GraphSvg.ts"
import type { Page, PageContext, PageResult } from "../Page.ts"
import { runFigures } from "../pages/figures.ts"
import { comparePage } from "../pages/compare.ts"
import { datasetPage } from "../pages/dataset.ts"
import { demoPage } from "../pages/demo.ts"
import { labelFunctionPage } from "../pages/labelFunction.ts"
import { runPage } from "../pages/run.ts"
import { runsPage } from "../pages/runs.ts"
import { taskPage } from "../pages/task.ts"
import { trajectoryPage } from "../pages/trajectory.ts"
import { whatIfPage } from "../pages/whatIf.ts"

const RUN = "run-mx9cfcfn-0a9e49"
const FIXTURE = join(import.meta.dir, "..", "..", "..", "tests", "fixtures", "replay-run")
const SCRIPT = "<script>alert(1)</script>"
const IMG = "<img src=x onerror=alert(1)>"

const dirs: Array<string> = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** A copy of the fixture (the store is opened read-write), or an empty directory. */
const workDir = (copy: boolean): string => {
  const dir = mkdtempSync(join(tmpdir(), "core-console-pages-"))
  dirs.push(dir)
  if (copy) cpSync(FIXTURE, dir, { recursive: true })
  return dir
}

type Env = EventStore | BlobStore | Scope.Scope

/** Runs `f` with the store and blobs of `dir`, read models projected from it, and the context a page gets. */
const withPages = <A>(
  dir: string,
  f: (ctx: PageContext, rm: ReadModels) => Effect.Effect<A, unknown, Env>,
  before: Effect.Effect<void, unknown, Env> = Effect.void
): Promise<A> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        yield* before
        const rm = yield* openReadModels("sqlite::memory:")
        yield* migrate(rm)
        yield* runProjector(rm)
        const ctx: PageContext = {
          readModels: rm,
          runLog: (runId) =>
            readRunLog(runId).pipe(
              Effect.map((log) => log.events),
              Effect.catchTag("RunNotFound", () => Effect.succeed([] as ReadonlyArray<CoreEvent>))
            )
        }
        return yield* f(ctx, rm)
      })
    ).pipe(
      Effect.provide(
        Layer.mergeAll(EmbeddedStore.layer({ path: join(dir, "events.db") }), DirectoryBlobStore.layer({ dir: join(dir, "blobs") }))
      )
    )
  )

const visit = (ctx: PageContext, page: Page, params: Record<string, string>, query = "") => page(ctx, params, new URLSearchParams(query))

/** The page's body; fails the test on a not-found. */
const body = (r: PageResult): string => {
  if (r.kind !== "page") throw new Error(`expected a page, got not-found: ${r.message}`)
  // The CSP allows neither inline styles nor scripts: only the audit's JSON data block may be a <script>.
  expect(r.body.text).not.toMatch(/\sstyle=/)
  expect(r.body.text.match(/<script(?![^>]*type="application\/json")/g)).toBeNull()
  return r.body.text
}

const all = (text: string, re: RegExp): Array<string> => [...text.matchAll(re)].map((m) => m[1]!)

const rows = (rm: ReadModels, table: string) =>
  Effect.promise(() => rm.db.selectFrom(table).selectAll().where("run_id", "=", RUN).execute())

test("the runs, run, compare and dataset pages show the fixture run's figures", async () => {
  await withPages(workDir(true), (ctx, rm) =>
    Effect.gen(function* () {
      const runs = yield* visit(ctx, runsPage, {})
      expect(runs.kind === "page" && runs.live).toEqual({ runId: null })
      const list = body(runs)
      expect(list).toContain(`href="/runs/${RUN}"`)
      expect(list).toContain(`<span class="badge pass">pass</span> 4`)
      expect(list).toContain("36 <span")

      const run = yield* visit(ctx, runPage, { run: RUN })
      expect(run.kind === "page" && run.live).toEqual({ runId: RUN })
      const trajectories = (yield* rows(rm, "trajectories")) as Array<{ trajectory_id: string; verdict: string }>
      const runText = body(run)
      for (const t of trajectories) expect(runText).toContain(`href="/runs/${RUN}/trajectories/${t.trajectory_id}"`)
      expect(runText).toContain(`href="/runs/${RUN}/tasks/forum-open-board-1-x15b78504"`)
      expect(runText).toContain("success-augmentation")
      const partial = body(yield* visit(ctx, runPage, { run: RUN }, "outcome=partial"))
      const section = partial.slice(partial.indexOf('id="trajectories"'))
      const listed = new Set(all(section, /<tr><td><a href="\/runs\/[^/]+\/trajectories\/([^"]+)"/g))
      expect(listed).toEqual(new Set(trajectories.filter((t) => t.verdict === "partial").map((t) => t.trajectory_id)))

      // Paths by meaning from the read model are the log's graphs counted by `distinctPaths`.
      const [figures] = yield* runFigures(rm, [RUN])
      const graphs = graphsOf(yield* ctx.runLog(RUN))
      expect(figures!.pathsByTask).toEqual(new Map([...graphs].map(([task, g]) => [task, distinctPaths(g)])))

      const compare = body(yield* visit(ctx, comparePage, {}, `a=${RUN}&b=${RUN}`))
      expect(compare).toContain("<th>pass</th><td>4</td><td>4</td>")
      expect(compare).not.toContain("<strong>")

      const dataset = body(yield* visit(ctx, datasetPage, { run: RUN }, "round=1&format=dpo"))
      expect(all(dataset, /record=([0-9a-f]{64})/g)).toHaveLength(4)
      expect(dataset).toContain(`bun core dataset export --run ${RUN} --format dpo --round 1 --out`)
      const audit = auditTrajectoryOf(yield* ctx.runLog(RUN), RUN, "r1-s0-forum-open-board-1")
      if (typeof audit === "string") throw new Error(audit)
      const fed = body(yield* visit(ctx, datasetPage, { run: RUN }, "trajectory=r1-s0-forum-open-board-1"))
      expect(new Set(all(fed, /record=([0-9a-f]{64})/g))).toEqual(new Set(audit.dataset_records.map((r) => r.record_id)))
      const sft = audit.dataset_records.find((r) => r.format === "sft")!.record_id
      const record = body(yield* visit(ctx, datasetPage, { run: RUN }, `record=${sft}`))
      expect(record).toContain("<h4>system</h4>")
      expect(record).toContain("<h4>assistant</h4>")
    })
  )
}, 60_000)

test("the task page draws the read model's graph: its SVG nodes are the task's graph_nodes rows", async () => {
  await withPages(workDir(true), (ctx, rm) =>
    Effect.gen(function* () {
      const nodes = (yield* rows(rm, "graph_nodes")) as Array<{ task_id: string; node_id: string; lf_id: string }>
      const tasks = [...new Set(nodes.map((n) => n.task_id))]
      expect(tasks.length).toBe(3)
      for (const task of tasks) {
        const text = body(yield* visit(ctx, taskPage, { run: RUN, task }))
        const drawn = all(text, /data-node-id="([^"]+)"/g)
        expect(new Set(drawn)).toEqual(new Set(nodes.filter((n) => n.task_id === task).map((n) => n.node_id)))
        expect(drawn.length).toBe(new Set(drawn).size)
        for (const n of nodes.filter((x) => x.task_id === task)) expect(text).toContain(`href="/runs/${RUN}/lfs/${n.lf_id}"`)
        expect(text).toContain('<pre class="code">')
      }
      const root = body(yield* visit(ctx, taskPage, { run: RUN, task: "forum-open-board-1" }))
      expect(root).toContain(`from demo <a href="/runs/${RUN}/demos/forum-open-board-1-script">`)
      expect(root).toContain("expansion (partial) of trajectory")
      // The demo's path was passed along by four trajectories.
      expect(root).toMatch(/p-4485b52a780abcd7[\s\S]*?x1-s2-forum-open-board-1<\/a><\/td><\/tr>/)
      const child = body(yield* visit(ctx, taskPage, { run: RUN, task: "forum-open-board-1-x15b78504" }))
      expect(child).toContain("extrapolation: the pseudo-demo")
    })
  )
}, 60_000)

test("the trajectory page embeds exactly the audit, and shows its steps and verdict strip", async () => {
  await withPages(workDir(true), (ctx, rm) =>
    Effect.gen(function* () {
      const events = yield* ctx.runLog(RUN)
      const trajectories = (yield* rows(rm, "trajectories")) as Array<{ trajectory_id: string; verdict: string; step_count: number }>
      expect(trajectories.length).toBe(10)
      for (const t of trajectories) {
        const text = body(yield* visit(ctx, trajectoryPage, { run: RUN, trajectory: t.trajectory_id }))
        const audit = auditTrajectoryOf(events, RUN, t.trajectory_id)
        if (typeof audit === "string") throw new Error(audit)
        const embedded = text.match(/<script type="application\/json" id="audit">([\s\S]*?)<\/script>/)![1]!
        // What `audit trajectory --json` prints is JSON.stringify of the same value.
        expect(JSON.parse(embedded)).toEqual(JSON.parse(JSON.stringify(audit)))
        expect(text).toContain("<div data-steps>")
        expect(all(text, /<section class="step" id="step-(\d+)" data-step="\d+">/g)).toEqual(
          Array.from({ length: t.step_count + 1 }, (_, i) => String(i))
        )
        const strip = all(text, /data-lf-id="([0-9a-f]{64})" data-satisfied-at="(?:-?\d+)"/g)
        if (t.verdict === "pass") expect(strip).toEqual(audit.path.steps.map((s) => s.lf_id))
        else expect(strip.length).toBeGreaterThan(0)
        for (const s of audit.path.steps)
          if (s.step !== null) expect(text).toContain(`data-lf-id="${s.lf_id}" data-satisfied-at="${s.step}"`)
      }
      const partial = body(yield* visit(ctx, trajectoryPage, { run: RUN, trajectory: "r1-s1-forum-open-board-1" }))
      expect(partial).toContain('data-satisfied-at="-1"')
      expect(partial).toContain("<strong>missing</strong>")
      const extrapolatedFrom = body(yield* visit(ctx, trajectoryPage, { run: RUN, trajectory: "x1-s1-forum-open-board-1" }))
      expect(extrapolatedFrom).toContain(`href="/runs/${RUN}/tasks/forum-open-board-1-x15b78504"`)
    })
  )
}, 60_000)

test("the demo and label-function pages render every demo and LF of the run, with the what-if form", async () => {
  await withPages(workDir(true), (ctx, rm) =>
    Effect.gen(function* () {
      for (const demo of ["forum-open-board-1-script", "forum-upvote-1-script"]) {
        const text = body(yield* visit(ctx, demoPage, { run: RUN, demo }))
        expect(text).toContain("<div data-steps>")
        expect(text).toContain("<strong>Key step</strong>")
      }
      const lfs = [...new Set(((yield* rows(rm, "graph_nodes")) as Array<{ lf_id: string }>).map((n) => n.lf_id))]
      expect(lfs.length).toBeGreaterThan(0)
      for (const lf of lfs) {
        const text = body(yield* visit(ctx, labelFunctionPage, { run: RUN, lf }))
        expect(text).toContain(`<form method="post" action="/runs/${RUN}/what-if">`)
        // The cookie authenticates the post: the page holds no token.
        expect(text).not.toContain('name="token"')
        expect(text).toContain(`<input type="hidden" name="lf" value="${lf}">`)
        expect(text).toMatch(/<textarea[^>]*name="code"[^>]*>\n?[\s\S]*function labelFunction/)
        // A short id names it too, as `audit label-function` takes one.
        expect(body(yield* visit(ctx, labelFunctionPage, { run: RUN, lf: lf.slice(0, 12) }))).toBe(text)
      }
    })
  )
}, 60_000)

test("what-if shows the flips whatIf computes; bad code is one escaped error line", async () => {
  const lf = "d8a65ce1c92485058eafa5db2532a7aebcbf94a14fdfa5add243b479fb4a4984"
  const never = "function labelFunction(t) { return -1 }"
  await withPages(workDir(true), (ctx) =>
    Effect.gen(function* () {
      const own = yield* Effect.provide(whatIf({ runId: RUN, replace: new Map([[lf, never]]) }), labelSandbox())
      expect(own.flips.length).toBeGreaterThan(0)
      const head = yield* (yield* EventStore).head()
      const text = body(yield* visit(ctx, whatIfPage, { run: RUN, lf, code: never }))
      // A what-if answers from a replay: the log is as it was.
      expect(yield* (yield* EventStore).head()).toBe(head)
      expect(text).toContain(`data-flip-count="${own.flips.length}"`)
      for (const f of own.flips) expect(text).toContain(`href="/runs/${RUN}/trajectories/${f.trajectoryId}"`)

      const broken = body(yield* visit(ctx, whatIfPage, { run: RUN, lf, code: `function labelFunction(t) { return ${SCRIPT}` }))
      expect(broken).not.toContain("data-flip-count")
      expect(broken).toMatch(/<span class="badge fail">error<\/span> syntax: [^\n<]*</)
      expect(broken).not.toContain(SCRIPT)
      const none = body(yield* visit(ctx, whatIfPage, { run: RUN, lf, code: "function other(t) { return 0 }" }))
      expect(none).toContain("defines no function labelFunction(t)")
      const unknown = body(yield* visit(ctx, whatIfPage, { run: RUN, lf: "abcdef0123", code: never }))
      expect(unknown).toContain(`run ${RUN} has no label function abcdef0123`)
    })
  )
}, 120_000)

/** A 1×1 PNG header: enough for a blob that is a screenshot. */
const png = (seed: number): Uint8Array =>
  new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, seed])

/** A task whose instruction is a script and a trajectory of it that clicked an element named like an image tag. */
const hostile = Effect.gen(function* () {
  const blobs = yield* BlobStore
  const store = yield* EventStore
  const screenshot = yield* blobs.put(png(1))
  const marks = yield* blobs.put(png(2))
  const element = { id: "e1", role: "button", name: IMG, text: IMG, value: null, box: { x: 10, y: 20, width: 30, height: 40 } }
  const flags = { visible: true, inViewport: true, enabled: true, editable: false, checked: null }
  const elements = yield* blobs.put(
    new TextEncoder().encode(
      JSON.stringify({ url: "/forum/", viewport: { width: 1280, height: 800 }, elements: [{ ...element, ...flags }] })
    )
  )
  const envelope = (stream: string, runId: string | null) => ({
    stream,
    runId,
    causationId: null,
    ordinal: 0,
    recordedAt: "2026-12-05T00:00:00.000Z"
  })
  const taskData = {
    taskId: "hostile-task",
    site: "forum",
    suite: "forum",
    template: null,
    instruction: SCRIPT,
    siteSeed: null,
    checker: null
  }
  const task = makeEvent(TaskRegistered, {
    ...envelope("ws.task.hostile-task", null),
    data: { ...taskData, platform: "web", startUrl: "/forum/", app: null }
  })
  yield* store.append(task.stream, [task], { expectedRevision: 0 })
  const observation = { url: "http://127.0.0.1/forum/", app: null, title: SCRIPT, screenshot, elements, aria: null, truncated: false }
  const initial = { ...observation, error: null, marks }
  const click = { kind: "click", target: { role: "button", name: IMG, elementId: "e1", text: IMG } } as const
  const trajectory = makeEvent(TrajectoryRecorded, {
    ...envelope(`run.${RUN}.traj.r9-s0-hostile-task`, RUN),
    data: {
      trajectoryId: "r9-s0-hostile-task",
      taskId: "hostile-task",
      round: 9,
      sample: 0,
      policy: "exploration-v1",
      initial,
      steps: [{ action: click, observation: { ...initial, error: SCRIPT } }],
      outcome: "completed",
      infraError: null,
      attempts: 1
    }
  })
  yield* store.append(trajectory.stream, [trajectory], { expectedRevision: 0 })
  // The same screen without a set-of-marks image: the element's recorded box still outlines it.
  const plain = { ...initial, marks: null }
  const unmarked = makeEvent(TrajectoryRecorded, {
    ...envelope(`run.${RUN}.traj.r9-s1-hostile-task`, RUN),
    data: {
      ...trajectory.data,
      trajectoryId: "r9-s1-hostile-task",
      sample: 1,
      initial: plain,
      steps: [{ action: click, observation: plain }]
    }
  })
  yield* store.append(unmarked.stream, [unmarked], { expectedRevision: 0 })
  return marks
})

test("hostile text from a page and a task is escaped; the acted element is outlined by its box, with or without marks", async () => {
  const escapedScript = "&lt;script&gt;alert(1)&lt;/script&gt;"
  const escapedImg = "&lt;img src=x onerror=alert(1)&gt;"
  let marks = ""
  await withPages(
    workDir(true),
    (ctx) =>
      Effect.gen(function* () {
        const trajectory = body(yield* visit(ctx, trajectoryPage, { run: RUN, trajectory: "r9-s0-hostile-task" }))
        const task = body(yield* visit(ctx, taskPage, { run: RUN, task: "hostile-task" }))
        const run = body(yield* visit(ctx, runPage, { run: RUN }))
        for (const page of [trajectory, task, run, body(yield* visit(ctx, runsPage, {}))]) {
          expect(page).not.toContain(SCRIPT)
          expect(page).not.toContain(IMG)
        }
        for (const page of [trajectory, task, run]) expect(page).toContain(escapedScript)
        expect(trajectory).toContain(escapedImg)
        // The audit's JSON holds the raw text, and `<` cannot end its script element.
        const embedded = trajectory.match(/<script type="application\/json" id="audit">([\s\S]*?)<\/script>/)![1]!
        expect(JSON.parse(embedded).instruction).toBe(SCRIPT)
        expect(trajectory).toContain(
          '<svg viewBox="0 0 1280 800" preserveAspectRatio="none" aria-hidden="true"><rect x="10" y="20" width="30" height="40"'
        )
        expect(trajectory).toContain(`data-marked="/blob/${marks}"`)
        expect(trajectory).toContain('<button type="button" data-toggle-marks>')
        const unmarked = body(yield* visit(ctx, trajectoryPage, { run: RUN, trajectory: "r9-s1-hostile-task" }))
        expect(unmarked).toContain('<rect x="10" y="20" width="30" height="40"')
        expect(unmarked).not.toContain("data-toggle-marks")
        const svg = graphSvg({ nodes: [{ id: "n-1", label: SCRIPT, detail: IMG }], edges: [{ from: "@start", to: "n-1" }] }).text
        expect(svg).not.toContain(SCRIPT)
        expect(svg).not.toContain(IMG)
        expect(svg).toContain('data-node-id="n-1"')
      }),
    Effect.map(hostile, (hash) => {
      marks = hash
    })
  )
}, 60_000)

test("unknown ids are not found; an empty log says how to start", async () => {
  await withPages(workDir(true), (ctx) =>
    Effect.gen(function* () {
      const missing: ReadonlyArray<[Page, Record<string, string>, string]> = [
        [runPage, { run: "run-none-000000" }, ""],
        [taskPage, { run: RUN, task: "no-such-task" }, ""],
        [taskPage, { run: "run-none-000000", task: "forum-upvote-1" }, ""],
        [trajectoryPage, { run: RUN, trajectory: "r9-s9-nothing" }, ""],
        [demoPage, { run: RUN, demo: "no-such-demo" }, ""],
        [labelFunctionPage, { run: RUN, lf: "0".repeat(64) }, ""],
        [labelFunctionPage, { run: RUN, lf: "d8a65" }, ""],
        [datasetPage, { run: RUN }, `record=${"0".repeat(64)}`],
        [datasetPage, { run: "run-none-000000" }, ""],
        [whatIfPage, { run: "run-none-000000", lf: "abcdef", code: "function labelFunction(t) { return 0 }" }, ""],
        [comparePage, {}, `a=${RUN}&b=run-none-000000`],
        [comparePage, {}, ""]
      ]
      for (const [page, params, query] of missing) expect((yield* visit(ctx, page, params, query)).kind).toBe("not-found")
    })
  )
  await withPages(workDir(false), (ctx) =>
    Effect.gen(function* () {
      const text = body(yield* visit(ctx, runsPage, {}))
      expect(text).toContain("Nothing yet")
      expect(text).toContain("bun core demo")
      expect(text).toContain("bun core run")
    })
  )
}, 60_000)
