/**
 * The log `bench ui` measures the console on, built through the real catalog and stores:
 * 100 runs, 99 of them the synthetic mix of @core/projections' generator (one or two rounds
 * of verdicts each) and one shop run whose 12-step trajectory carries real-size screenshots
 * (1280×800 PNGs of about 75 KB, like the recorded fixture's), set-of-marks images and
 * element lists, judged by a two-node strategy graph.
 *
 * The screenshots are drawn here, not captured: a browser would make the bench slower and
 * its bytes different from run to run, and the console only serves them, never decodes them.
 */
import { Effect } from "effect"
import { BlobStore } from "@core/blobstore"
import {
  DatasetRecordEmitted,
  DemoIngested,
  examples,
  labelFunctionId,
  LabelFunctionInferred,
  makeEvent,
  NodeExpanded,
  PathAdded,
  RoundCompleted,
  RoundStarted,
  RunStarted,
  runStream,
  sha256,
  TaskRegistered,
  TrajectoryRecorded,
  TrajectoryVerified,
  workspaceStream
} from "@core/events"
import type { CoreEvent, EventDefinition, Observation } from "@core/events"
import { EventStore } from "@core/eventstore"
import { generateCommits } from "@core/projections"
import type { Commit } from "@core/projections"
import { encodePng } from "./Png.ts"

export const UI_RUNS = 100
export const UI_STEPS = 12

const W = 1280
const H = 800

interface Box {
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

/** xorshift32: the same pages every run. */
const random = (seed: number) => {
  let s = (seed * 2654435761) >>> 0 || 1
  return () => {
    s ^= s << 13
    s >>>= 0
    s ^= s >>> 17
    s ^= s << 5
    s >>>= 0
    return s / 4294967296
  }
}

/** A fixed set of anti-aliased-looking glyphs, so text repeats the way a real page's does. */
const GLYPHS = (() => {
  const r = random(7)
  return Array.from({ length: 40 }, () => Uint8Array.from({ length: 96 }, () => (r() < 0.4 ? 1 + Math.floor(r() * 120) : 0)))
})()

const tileAt = (t: number): Box => ({ x: 40 + (t % 4) * 300, y: 100 + Math.floor(t / 4) * 230, width: 240, height: 140 })

/** A shop page: a header, twelve product tiles with a picture, two lines of text and a button. */
const paintPage = (seed: number, outlines: ReadonlyArray<Box>): Uint8Array => {
  const rand = random(seed + 1)
  const px = new Uint8Array(W * H * 3).fill(255)
  const put = (x: number, y: number, r: number, g: number, b: number) => {
    if (x < 0 || y < 0 || x >= W || y >= H) return
    const o = (y * W + x) * 3
    px[o] = r
    px[o + 1] = g
    px[o + 2] = b
  }
  const rect = (b: Box, color: (x: number, y: number) => readonly [number, number, number]) => {
    for (let y = b.y; y < b.y + b.height; y++) for (let x = b.x; x < b.x + b.width; x++) put(x, y, ...color(x - b.x, y - b.y))
  }
  const text = (x0: number, y0: number, width: number, ink: number) => {
    for (let x = x0; x < x0 + width; x += 6) {
      const word = 3 + Math.floor(rand() * 8)
      for (let c = 0; c < word && x < x0 + width; c++, x += 8) {
        const glyph = GLYPHS[Math.floor(rand() * GLYPHS.length)]!
        for (let i = 0; i < 96; i++)
          if (glyph[i]! > 0) put(x + (i % 8), y0 + Math.floor(i / 8), ink + glyph[i]!, ink + glyph[i]!, ink + glyph[i]!)
      }
    }
  }
  rect({ x: 0, y: 0, width: W, height: 64 }, () => [30, 60, 110])
  for (let i = 0; i < 8; i++) text(20 + i * 150, 26, 100, 120)
  for (let t = 0; t < 12; t++) {
    const tile = tileAt(t)
    const [r, g, b] = [rand() * 200, rand() * 200, Math.floor(rand() * 200)]
    rect(tile, (x, y) => [Math.min(255, r + x / 4), Math.min(255, g + y / 3), b])
    text(tile.x, tile.y + 150, 220, 20)
    text(tile.x, tile.y + 170, 160, 20)
    rect({ x: tile.x, y: tile.y + 192, width: 120, height: 26 }, () => [230, 120, 20])
  }
  const red = () => [230, 25, 75] as const
  for (const o of outlines) {
    for (const edge of [
      { ...o, height: 2 },
      { ...o, y: o.y + o.height - 2, height: 2 },
      { ...o, width: 2 },
      { ...o, x: o.x + o.width - 2, width: 2 }
    ])
      rect(edge, red)
  }
  return px
}

/** The elements of a page as env-web lists them: ids the example trajectory's targets name, boxes inside the viewport. */
const elementsOf = (seed: number) => {
  const el = (id: number, role: string, name: string, box: Box, value: string | null = null) => ({
    id: String(id),
    role,
    name,
    text: name,
    value,
    box,
    visible: true,
    inViewport: true,
    enabled: true,
    editable: role === "searchbox" || role === "spinbutton",
    checked: null
  })
  const list = [
    ...Array.from({ length: 8 }, (_, i) => el(i + 1, "link", `Category ${i + 1}`, { x: 20 + i * 150, y: 26, width: 100, height: 12 })),
    el(9, "combobox", "Sort by", { x: 1100, y: 70, width: 140, height: 24 }, "relevance"),
    el(10, "link", "Sign in", { x: 1180, y: 4, width: 50, height: 14 }),
    el(11, "link", "Cart", { x: 1240, y: 4, width: 30, height: 14 }),
    el(12, "searchbox", "Search", { x: 900, y: 20, width: 180, height: 24 }, "")
  ]
  for (let t = 0; t < 12; t++) {
    const { x, y } = tileAt(t)
    const id = 13 + t * 6
    list.push(
      el(id, "link", `Product ${seed}-${t}`, tileAt(t)),
      el(id + 1, "link", `Product ${seed}-${t} 200g`, { x, y: y + 150, width: 220, height: 12 }),
      el(id + 2, "text", `$${(t * 3.7 + seed).toFixed(2)}`, { x, y: y + 170, width: 160, height: 12 }),
      el(id + 3, "spinbutton", "Qty", { x: x + 130, y: y + 192, width: 40, height: 26 }, "1"),
      el(id + 4, "button", "Add to Cart", { x, y: y + 192, width: 120, height: 26 }),
      el(id + 5, "button", "Add to Wish List", { x: x + 180, y: y + 192, width: 60, height: 26 })
    )
  }
  list[29] = { ...list[29]!, role: "link", name: "Black garlic", text: "Black garlic 200g" }
  return list
}

/** One screen's three blobs: screenshot, set-of-marks image and element list. */
const screen = (seed: number, url: string) => {
  const elements = elementsOf(seed)
  return {
    screenshot: encodePng(W, H, paintPage(seed, [])),
    marks: encodePng(
      W,
      H,
      paintPage(
        seed,
        elements.map((e) => e.box)
      )
    ),
    elements: new TextEncoder().encode(JSON.stringify({ url, viewport: { width: W, height: H }, elements }))
  }
}

export interface UiLog {
  readonly runs: number
  readonly events: number
  readonly runId: string
  readonly trajectoryId: string
  readonly steps: number
  readonly screenshotBytes: ReadonlyArray<number>
}

const at = (n: number) => new Date(Date.UTC(2026, 11, 5, 9) + n * 1000).toISOString()

/** One-event commits of one run, stamped a second apart in the order they are made. */
const committer = (runId: string) => {
  let clock = 0
  return <D extends EventDefinition>(def: D, stream: string, data: D["data"]["Type"], scope: string | null = runId): Commit => ({
    stream,
    events: [
      makeEvent(def, {
        stream,
        runId: scope,
        causationId: sha256(`${stream}:${clock}`),
        ordinal: 0,
        recordedAt: at(clock++),
        data
      }) as CoreEvent
    ]
  })
}

/** The task's graph from its demo: the wish-list click, then the status, one path through both. */
const graphOf = (taskId: string, demoId: string) => {
  const source = { kind: "demo", id: demoId } as const
  const statusCode = `function labelFunction(t) {\n  return validateStatus(t, "complete")\n}\n`
  const lfs = [
    { ...examples.LabelFunctionInferred, taskId, source },
    { ...examples.LabelFunctionInferred, taskId, source, keyStepIndex: 2, code: statusCode, lfId: labelFunctionId(statusCode) }
  ]
  const nodeIds = ["n-wishlist-click", "n-status-complete"]
  const status = { actionKind: "status" as const, role: null, name: null, value: "complete", urlPattern: null }
  const nodes = nodeIds.map((nodeId, i) => ({
    ...examples.NodeExpanded,
    taskId,
    nodeId,
    lfId: lfs[i]!.lfId,
    description: i === 0 ? examples.NodeExpanded.description : "Set the task's status as 'complete'.",
    semanticKey: i === 0 ? examples.NodeExpanded.semanticKey : status,
    source,
    how: "demo" as const
  }))
  return { lfs, nodes, path: { ...examples.PathAdded, taskId, pathId: "p-1", nodeIds, source } }
}

/** The shop run as the pipeline writes it; the graph precedes its round, which is what the audit judges by. */
const shopRun = <E>(runId: string, observe: (seed: number, o: Observation) => Effect.Effect<Observation, E>) =>
  Effect.gen(function* () {
    const taskId = "ui-bench-wishlist"
    const demoId = "ui-bench-demo"
    const trajectoryId = "traj-r1-t0-s0"
    const ev = committer(runId)
    const graph = graphOf(taskId, demoId)
    // The example's 13 steps without `open_app`, which has no screenshot: 12, the click at 9, the status at 11.
    const example = examples.TrajectoryRecorded.steps.filter((s) => s.action.kind !== "open_app")
    const steps = []
    for (const [i, s] of example.entries()) steps.push({ action: s.action, observation: yield* observe(i + 1, s.observation) })
    const initial = yield* observe(0, examples.TrajectoryRecorded.initial)
    const recorded = { ...examples.TrajectoryRecorded, trajectoryId, taskId, initial, steps }
    const verified = {
      ...examples.TrajectoryVerified,
      trajectoryId,
      taskId,
      evidence: graph.lfs.map((lf, i) => ({ lfId: lf.lfId, satisfiedAt: i === 0 ? 9 : 11, error: null })),
      path: graph.path.nodeIds
    }
    const rs = (kind: string, id: string) => runStream(runId, kind, id)
    const traj = rs("traj", trajectoryId)
    const trajCommit = ev(TrajectoryRecorded, traj, recorded)
    const commits: Array<Commit> = [
      ev(TaskRegistered, workspaceStream("task", taskId), { ...examples.TaskRegistered, taskId }, null),
      ev(DemoIngested, workspaceStream("demo", demoId), { ...examples.DemoIngested, demoId, taskId }, null),
      ev(RunStarted, rs("run", runId), { ...examples.RunStarted, command: "core run --rounds 1" }),
      ...graph.lfs.map((lf) => ev(LabelFunctionInferred, rs("infer", demoId), lf)),
      ...graph.nodes.map((n) => ev(NodeExpanded, rs("graph", taskId), n)),
      ev(PathAdded, rs("graph", taskId), graph.path),
      ev(RoundStarted, rs("round", "1"), { ...examples.RoundStarted, taskIds: [taskId], samplesPerTask: 1 }),
      { stream: traj, events: [...trajCommit.events, ...ev(TrajectoryVerified, traj, verified).events] },
      ev(DatasetRecordEmitted, rs("dataset", "1"), { ...examples.DatasetRecordEmitted, taskId, trajectoryIds: [trajectoryId] }),
      ev(RoundCompleted, rs("round", "1"), { ...examples.RoundCompleted, counts: { pass: 1 } })
    ]
    return { commits, trajectoryId, steps: steps.length }
  })

/** Writes the whole log and its blobs; returns what was built, for the bench to check the pages against. */
export const writeUiLog = Effect.gen(function* () {
  const store = yield* EventStore
  const blobs = yield* BlobStore
  const screenshotBytes: Array<number> = []
  const observe = (seed: number, o: Observation) =>
    Effect.gen(function* () {
      const s = screen(seed, o.url ?? "")
      screenshotBytes.push(s.screenshot.length)
      return {
        ...o,
        aria: null,
        screenshot: yield* blobs.put(s.screenshot),
        marks: yield* blobs.put(s.marks),
        elements: yield* blobs.put(s.elements)
      }
    })
  const runId = "ui-bench-shop"
  const shop = yield* shopRun(runId, observe)
  // Half the runs with one round, half with two, as a log of real runs mixes them.
  const generated = [
    ...generateCommits({ prefix: "ui1", runs: UI_RUNS / 2, rounds: 1, tasks: 4, samples: 2 }),
    ...generateCommits({ prefix: "ui2", runs: UI_RUNS / 2 - 1, rounds: 2, tasks: 4, samples: 2 })
  ]
  const revisions = new Map<string, number>()
  let events = 0
  for (const c of [...generated, ...shop.commits]) {
    const appended = yield* store.append(c.stream, c.events, { expectedRevision: revisions.get(c.stream) ?? 0 })
    revisions.set(c.stream, appended.revision)
    events += c.events.length
  }
  return { runs: UI_RUNS, events, runId, trajectoryId: shop.trajectoryId, steps: shop.steps, screenshotBytes } satisfies UiLog
})
