/**
 * The dataset decider on round 0 (the run's demos as sft records), over a real blob store
 * and, for demo folders, a real embedded store:
 * a demo ingested without the screen before its first step (every demo ingested before
 * format version 2) gives exactly the records it always gave — pinned by id, so a log
 * written before `initial` existed replays without a divergence — and a demo that carries
 * `initial` shows that screen in its first record.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BlobStore, DirectoryBlobStore } from "@core/blobstore"
import {
  DemoIngested,
  digest,
  makeEvent,
  NodeExpanded,
  PathAdded,
  RoundExtrapolated,
  RunStarted,
  runStream,
  sha256,
  TaskRegistered,
  workspaceStream
} from "@core/events"
import type { Action, CoreEvent, DataOf, DemoStep } from "@core/events"
import { EmbeddedStore, EventStore } from "@core/eventstore"
import { demoStream, ingestDemo, loadDemo } from "@core/demos"
import { datasets, evolveRun, initialRunState } from "@core/pipeline"
import { INITIAL_PNG, writeDemoV2 } from "../../demos/test/fixture.ts"
import { writeAndroidDemo } from "../../demos/test/fixtureAndroid.ts"

const AT = "2026-12-02T12:00:00.000Z"
const RUN = "ds-t1"
const TASK = "kettle-1"
const dir = mkdtempSync(join(tmpdir(), "core-datasets-"))
const rt = ManagedRuntime.make(
  Layer.mergeAll(EmbeddedStore.layer({ path: join(dir, "events.db") }), DirectoryBlobStore.layer({ dir: join(dir, "blobs") })).pipe(
    Layer.orDie
  )
)
afterAll(async () => {
  await rt.dispose()
  rmSync(dir, { recursive: true, force: true })
})

const page = (role: string, name: string) =>
  JSON.stringify({ url: "x", elements: [{ id: "e1", role, name, text: name, value: null, checked: null, visible: true }] })
const target = (role: string, name: string) => ({ role, name, elementId: "e1", text: name })
const put = (text: string) =>
  rt.runPromise(
    Effect.gen(function* () {
      return yield* (yield* BlobStore).put(new TextEncoder().encode(text))
    })
  )

type Demo = DataOf<typeof DemoIngested>
let steps: Array<DemoStep>
let initial: { screenshot: string; elements: string; aria: null }

beforeAll(async () => {
  const recorded: Array<[Action, string, string, string]> = [
    [
      { kind: "type", target: target("searchbox", "Search"), text: "kettle", submit: true },
      "/",
      "/search?q=kettle",
      page("link", "Kettle")
    ],
    [{ kind: "click", target: target("link", "Kettle") }, "/search?q=kettle", "/product/kettle", page("button", "Add to cart")],
    [{ kind: "status", status: "complete" }, "/product/kettle", "/product/kettle", page("button", "Add to cart")]
  ]
  steps = []
  for (const [action, urlBefore, urlAfter, elements] of recorded) {
    steps.push({
      action,
      observation: { screenshot: null, elements: await put(elements), aria: null },
      urlBefore,
      urlAfter,
      appBefore: null,
      appAfter: null
    })
  }
  initial = { screenshot: await put("the home page, as a picture"), elements: await put(page("searchbox", "Search")), aria: null }
})

const at = <D extends Parameters<typeof makeEvent>[0]>(definition: D, stream: string, data: DataOf<D>, runId: string | null = null) =>
  makeEvent(definition, { stream, runId, causationId: null, ordinal: 0, recordedAt: AT, data }) as CoreEvent

/** Round 0's decisions for a run of the demo's task, whose graph starts from `demo`. */
const roundZero = (demo: Demo) => {
  const task = demo.taskId
  const prior = [
    at(
      RunStarted,
      runStream(RUN, "run", RUN),
      { config: { "run.tasks": [task] }, configSources: {}, seed: "s", code: { commit: null, dirty: false }, tools: {}, command: "run" },
      RUN
    ),
    at(TaskRegistered, workspaceStream("task", task), {
      taskId: task,
      site: "shop",
      suite: "test",
      template: null,
      instruction: "Add the kettle to the cart.",
      siteSeed: 1,
      checker: null,
      platform: "web",
      startUrl: "http://shop/",
      app: null
    }),
    at(DemoIngested, workspaceStream("demo", demo.demoId), demo),
    at(
      NodeExpanded,
      runStream(RUN, "graph", task),
      {
        taskId: task,
        nodeId: "n0",
        lfId: digest("lf-0"),
        description: "the kettle is in the cart",
        how: "demo",
        source: { kind: "demo", id: demo.demoId },
        semanticKey: { actionKind: "status", role: null, name: null, value: "complete", urlPattern: null }
      },
      RUN
    ),
    at(
      PathAdded,
      runStream(RUN, "graph", task),
      { taskId: task, pathId: "p0", nodeIds: ["n0"], source: { kind: "demo", id: demo.demoId } },
      RUN
    )
  ]
  const state = prior.reduce(evolveRun, initialRunState)
  const cause = at(RoundExtrapolated, runStream(RUN, "round", "0"), { round: 0, newTaskIds: [], refused: 0 }, RUN)
  return rt
    .runPromise(datasets.decide(state, cause))
    .then((ds) => ds.map((d) => d.data as { recordId?: string; body?: any; blobs?: ReadonlyArray<string> }))
}

const demoOf = (extra: Partial<Demo> = {}): Demo => ({
  demoId: "kettle-1-a",
  taskId: TASK,
  source: { kind: "file", ref: "test" },
  steps,
  contentDigest: digest({ taskId: TASK, steps }),
  ...extra
})

const userTurn = (record: { body?: any }): string => record.body.messages[1].content

describe("datasets: round 0 from demos", () => {
  test("given a demo without the screen before step 0, when round 0 is decided, then its records are today's: the first shows no page", async () => {
    const out = await roundZero(demoOf())
    const records = out.filter((d) => d.recordId !== undefined)
    expect(records).toHaveLength(3)
    expect(userTurn(records[0]!)).toContain("# Current screen\n\nURL: /\nTitle: \n\n\n\n# Actions taken so far\n\n(none)")
    expect(records[0]!.body.images).toEqual([])
    expect(userTurn(records[1]!)).toContain('link "Kettle"')
    // Pinned: the ids this demo's records had before `initial` existed — an old log's round 0 replays to them.
    expect(records.map((r) => r.recordId)).toEqual(PINNED)
  })

  test("given a demo with the screen before step 0, when round 0 is decided, then the first record shows that screen and the rest are unchanged", async () => {
    const before = (await roundZero(demoOf())).filter((d) => d.recordId !== undefined)
    const withInitial = demoOf({ platform: "web", initial, contentDigest: digest({ taskId: TASK, platform: "web", initial, steps }) })
    const records = (await roundZero(withInitial)).filter((d) => d.recordId !== undefined)
    expect(records).toHaveLength(3)
    const first = userTurn(records[0]!)
    expect(first).toStartWith("<image>\n# Task")
    expect(first).toContain("# Current screen\n\nURL: /\n")
    expect(first).toContain('searchbox "Search"')
    expect(records[0]!.body.images).toEqual([initial.screenshot])
    expect(records[0]!.blobs).toEqual([initial.screenshot])
    expect(records[0]!.recordId).not.toBe(before[0]!.recordId)
    expect(records.slice(1).map((r) => r.recordId)).toEqual(before.slice(1).map((r) => r.recordId))
  })
})

/** The DemoIngested data `bun core ingest` writes for the demo folder `file`. */
const ingested = (file: string) =>
  rt.runPromise(
    Effect.gen(function* () {
      const demo = yield* loadDemo(file, { tasks: new Set(["shop-wishlist-add-1", "settings-network-1"]) })
      yield* ingestDemo(demo, file)
      const events = yield* (yield* EventStore).readStream(demoStream(demo.demoId))
      return events.at(-1)!.event.data as Demo
    })
  )

describe("datasets: round 0 from demo folders in format version 2", () => {
  test("given a web demo folder with initial, ingested, when round 0 is decided, then its first record shows the initial page and screenshot", async () => {
    const demo = await ingested(writeDemoV2(join(dir, "web")))
    const first = (await roundZero(demo)).find((d) => d.recordId !== undefined)!
    expect(userTurn(first)).toStartWith("<image>\n# Task")
    expect(userTurn(first)).toContain('# Current screen\n\nURL: /shop/\nTitle: \n\n[e3] searchbox "Search"')
    expect(first.body.images).toEqual([sha256(INITIAL_PNG)])
  })

  test("given an Android demo folder, ingested, when round 0 is decided, then its first record shows the home screen's elements", async () => {
    const demo = await ingested(writeAndroidDemo(join(dir, "android")))
    const records = (await roundZero(demo)).filter((d) => d.recordId !== undefined)
    expect(records).toHaveLength(2)
    expect(userTurn(records[0]!)).toContain('# Current screen\n\nURL: (none)\nTitle: \n\n[e1] button "Search settings"')
    expect(records[0]!.body.images).toHaveLength(1)
    expect(userTurn(records[1]!)).toContain('button "Tipo de rede preferencial"')
  })
})

/** The record ids of `demoOf()`'s round 0, computed by the decider as it was before demos had `initial`. */
const PINNED = [
  "b8030dc9c766d03128ccaa2a20a6771a84238bf143c82561ebd24dc8f3dc8a03",
  "2d993cfe92885a0416c9bb8a7ce7f3525be9ebc4dda1524dd85ed80d1a27823d",
  "aeaaeeb17f12bbb7942932be17381eb5e1fc69fc33b4e0cbb54b92b2e6f9fdbf"
]
