/**
 * One realistic data value for every event type, shaped like what the pipeline writes for
 * one small web task (search "black garlic", add it to the wish list). The catalog's tests
 * build their samples from it and the synthetic logs of the benchmarks vary ids on top of
 * it, so there is one copy of what a plausible event looks like.
 */
import { digest, sha256 } from "./Canonical.ts"
import type { CoreEventType } from "./Catalog.ts"
import type { DataOf } from "./Event.ts"
import type { DatasetRecordEmitted, DatasetSealed } from "./Dataset.ts"
import type { NodeExpanded, PathAdded, PathRefused, TrajectoryPromoted } from "./Graph.ts"
import type { JobCompleted, JobQueued } from "./Job.ts"
import { labelFunctionId } from "./Labeling.ts"
import type { KeyStepsIdentified, LabelFunctionInferred, LabelFunctionRejected, StepsDescribed } from "./Labeling.ts"
import type { ModelCalled } from "./Models.ts"
import type { PolicyTrained, RoundCompleted, RoundStarted, RunStarted } from "./Run.ts"
import type { RoundExtrapolated, TaskExtrapolated, TaskExtrapolationRejected } from "./Task.ts"
import type { Observation, TrajectoryRecorded, TrajectoryVerified } from "./Trajectory.ts"
import type { DemoIngested, DemoRejected, DemoStep, TaskRegistered } from "./Workspace.ts"

const blob = (name: string) => sha256(`blob:${name}`)

const demoSteps: ReadonlyArray<DemoStep> = [
  {
    action: {
      kind: "type",
      target: { role: "searchbox", name: "Search", elementId: "12", text: null },
      text: "black garlic",
      submit: true
    },
    observation: { screenshot: blob("d0.png"), elements: blob("d0.elements"), aria: blob("d0.aria") },
    urlBefore: "http://shop.local/",
    urlAfter: "http://shop.local/search?q=black+garlic",
    appBefore: null,
    appAfter: null
  },
  {
    action: { kind: "click", target: { role: "button", name: "Add to Wish List", elementId: "48", text: "Add to Wish List" } },
    observation: { screenshot: blob("d1.png"), elements: null, aria: blob("d1.aria") },
    urlBefore: "http://shop.local/search?q=black+garlic",
    urlAfter: "http://shop.local/wishlist",
    appBefore: null,
    appAfter: null
  },
  {
    action: { kind: "status", status: "complete" },
    observation: { screenshot: null, elements: null, aria: null },
    urlBefore: "http://shop.local/wishlist",
    urlAfter: "http://shop.local/wishlist",
    appBefore: null,
    appAfter: null
  }
]

const obs = (url: string, name: string, extra: Partial<Observation> = {}): Observation => ({
  url,
  app: null,
  title: "One Stop Market",
  screenshot: blob(`${name}.png`),
  elements: blob(`${name}.elements`),
  aria: blob(`${name}.aria`),
  truncated: false,
  error: null,
  ...extra
})

const search = "http://shop.local/search?q=black+garlic"
const sorted = `${search}&sort=price`
const lfCode = `function labelFunction(t) {\n  return validateClick(t, "button", "Add to Wish List")\n}\n`
const lfId = labelFunctionId(lfCode)
const demo = { kind: "demo", id: "demo-wishlist-1" } as const
const trajectory = { kind: "trajectory", id: "traj-r1-t7-s0" } as const
const sftBody = {
  messages: [
    { role: "user", content: "Add black garlic to my wish list" },
    { role: "assistant", content: "click [48]" }
  ],
  images: [blob("t0.png")]
}

export const examples = {
  RunStarted: {
    config: { samplesPerTask: 5, model: { name: "gui-r1-7b", apiKeyEnv: "CORE_MODEL_KEY" } },
    configSources: { samplesPerTask: "file", "model.name": "flag:--model", "model.apiKeyEnv": "default" },
    seed: "42",
    code: { commit: "c813b43", dirty: true },
    tools: { bun: "1.3.2", chromium: null, "nats-server": "2.9.10" },
    command: "core run --rounds 3"
  } satisfies DataOf<typeof RunStarted>,
  RoundStarted: { round: 1, taskIds: ["shop-wishlist-7"], policy: "gui-r1-7b", samplesPerTask: 5 } satisfies DataOf<typeof RoundStarted>,
  RoundCompleted: { round: 1, counts: { pass: 3, partial: 1, fail: 1 }, datasetDigest: sha256("dataset-1") } satisfies DataOf<
    typeof RoundCompleted
  >,
  PolicyTrained: {
    round: 1,
    trainer: "lora-sft",
    datasetDigest: sha256("dataset-1"),
    checkpoint: "ckpt/iter1",
    metrics: { loss: 0.412, steps: 120 }
  } satisfies DataOf<typeof PolicyTrained>,
  JobQueued: { jobId: "j7", kind: "rollout", round: 1, taskId: "shop-wishlist-7", params: { sample: 0, budget: 15 } } satisfies DataOf<
    typeof JobQueued
  >,
  TaskRegistered: {
    taskId: "shop-wishlist-7",
    site: "shop",
    suite: "shopping-basic",
    template: { id: "wishlist-add", parameters: { product: "black garlic", quantity: 1, gift: false } },
    instruction: "Add black garlic to my wish list",
    siteSeed: 7,
    checker: "wishlistContains",
    platform: "web",
    startUrl: "http://shop.local/",
    app: null
  } satisfies DataOf<typeof TaskRegistered>,
  DemoIngested: {
    demoId: "demo-wishlist-1",
    taskId: "shop-wishlist-7",
    source: { kind: "file", ref: "demos/shop/wishlist.jsonl" },
    steps: demoSteps,
    contentDigest: digest({ taskId: "shop-wishlist-7", steps: demoSteps })
  } satisfies DataOf<typeof DemoIngested>,
  DemoRejected: {
    demoId: null,
    source: { kind: "file", ref: "demos/shop/broken.jsonl" },
    reason: "step 2: unknown action kind 'swipe'",
    line: 3,
    stepIndex: 2
  } satisfies DataOf<typeof DemoRejected>,
  LabelFunctionInferred: {
    lfId,
    taskId: "shop-wishlist-7",
    source: demo,
    keyStepIndex: 1,
    description: "Click on a UI element 'Add to Wish List' on the screen.",
    code: lfCode,
    apiVersion: "1",
    inference: { method: "model", evidence: "model", attempts: 2, modelCallIds: [sha256("call-1"), sha256("call-2")] },
    validation: { onDemoAtKeyStep: 1, onPrefix: false, onFailures: [{ trajectoryId: "traj-r0-t7-s3", result: -1 }] }
  } satisfies DataOf<typeof LabelFunctionInferred>,
  LabelFunctionRejected: {
    taskId: "shop-wishlist-7",
    source: demo,
    keyStepIndex: 0,
    description: "Type text 'black garlic' into the 'Search'",
    candidateCode: `function labelFunction(t) {\n  return validateType(t, "black garlic", "Search")\n}\n`,
    reason: "held on the prefix before its key step",
    attempts: 5,
    modelCallIds: [sha256("call-3")]
  } satisfies DataOf<typeof LabelFunctionRejected>,
  ModelCalled: {
    callIndex: 0,
    model: "qwen2.5-coder-3b",
    purpose: "lf-synthesis",
    requestDigest: sha256("request-0"),
    requestBlob: blob("request-0.json"),
    prompt: { name: "lf-synthesis", version: "3", digest: sha256("prompt-lf-3") },
    response: {
      text: '```javascript\nfunction labelFunction(t) {\n  return validateClick(t, "button", "Add to Wish List")\n}\n```',
      finishReason: "stop",
      usage: { inputTokens: 812, outputTokens: 31 }
    },
    error: null,
    latencyMs: 412.5
  } satisfies DataOf<typeof ModelCalled>,
  TrajectoryRecorded: {
    trajectoryId: "traj-r1-t7-s0",
    taskId: "shop-wishlist-7",
    round: 1,
    sample: 0,
    policy: "gui-r1-7b",
    initial: obs("http://shop.local/", "t-init"),
    steps: [
      { action: { kind: "navigate", url: search }, observation: obs(search, "t0") },
      { action: { kind: "scroll", target: null, direction: "down" }, observation: obs(search, "t1", { truncated: true }) },
      { action: { kind: "home" }, observation: obs(search, "t2", { error: "'home' is not available on the web" }) },
      {
        action: { kind: "select", target: { role: "combobox", name: "Sort by", elementId: "9", text: null }, value: "price" },
        observation: obs(sorted, "t3")
      },
      { action: { kind: "key", key: "Escape" }, observation: obs(sorted, "t4") },
      { action: { kind: "wait", ms: 500 }, observation: obs(sorted, "t5") },
      {
        action: { kind: "type", target: { role: "spinbutton", name: "Qty", elementId: "51", text: "1" }, text: "2" },
        observation: obs(sorted, "t6")
      },
      {
        action: { kind: "long_press", target: { role: "link", name: "Black garlic", elementId: "30", text: "Black garlic 200g" } },
        observation: obs("http://shop.local/p/black-garlic", "t7")
      },
      { action: { kind: "back" }, observation: obs(sorted, "t8") },
      {
        action: { kind: "open_app", app: "Clock" },
        observation: obs(sorted, "t9", { error: "'open_app' is not available on the web", screenshot: null })
      },
      {
        action: { kind: "click", target: { role: "button", name: "Add to Wish List", elementId: "48", text: null } },
        observation: obs("http://shop.local/wishlist", "t10")
      },
      { action: { kind: "answer", text: "Added." }, observation: obs("http://shop.local/wishlist", "t11") },
      { action: { kind: "status", status: "complete" }, observation: obs("http://shop.local/wishlist", "t12") }
    ],
    outcome: "completed",
    infraError: null,
    attempts: 1
  } satisfies DataOf<typeof TrajectoryRecorded>,
  TrajectoryVerified: {
    trajectoryId: "traj-r1-t7-s0",
    taskId: "shop-wishlist-7",
    verdict: "pass",
    evidence: [
      { lfId, satisfiedAt: 10, error: null },
      { lfId: sha256("lf-status"), satisfiedAt: 12, error: null },
      { lfId: sha256("lf-hostile"), satisfiedAt: -1, error: "instruction budget exhausted" }
    ],
    path: ["n-wishlist-click", "n-status-complete"]
  } satisfies DataOf<typeof TrajectoryVerified>,
  NodeExpanded: {
    taskId: "shop-wishlist-7",
    nodeId: "n-wishlist-click",
    lfId,
    description: "Click on a UI element 'Add to Wish List' on the screen.",
    semanticKey: { actionKind: "click", role: "button", name: "add to wish list", value: null, urlPattern: "http://shop.local/search?q=*" },
    source: trajectory,
    how: "partial"
  } satisfies DataOf<typeof NodeExpanded>,
  PathAdded: {
    taskId: "shop-wishlist-7",
    pathId: "p-2",
    nodeIds: ["n-wishlist-click", "n-status-complete"],
    source: trajectory
  } satisfies DataOf<typeof PathAdded>,
  PathRefused: {
    taskId: "shop-wishlist-7",
    nodeIds: ["n-search-empty", "n-answer-42"],
    source: trajectory,
    reason: "no-op",
    steps: [0]
  } satisfies DataOf<typeof PathRefused>,
  TrajectoryPromoted: {
    trajectoryId: "traj-r1-t7-s2",
    taskId: "shop-wishlist-7",
    path: ["n-wishlist-click", "n-status-complete"],
    matched: [
      { nodeId: "n-wishlist-click", lfId, satisfiedAt: 3 },
      { nodeId: "n-status-complete", lfId: sha256("lf-status"), satisfiedAt: 4 }
    ]
  } satisfies DataOf<typeof TrajectoryPromoted>,
  TaskExtrapolated: {
    newTaskId: "x-shop-sort-1",
    instruction: "Sort the black garlic search results by price",
    generator: "failure-relabel",
    lineage: {
      parentTrajectoryIds: ["traj-r1-t7-s3"],
      parentTaskId: "shop-wishlist-7",
      generatorVersion: "1",
      promptDigest: sha256("prompt-relabel-1")
    },
    pseudoDemoTrajectoryId: "traj-r1-t7-s3",
    pseudoDemoSteps: 4,
    template: { id: "shop-sort", parameters: { query: "black garlic" } }
  } satisfies DataOf<typeof TaskExtrapolated>,
  TaskExtrapolationRejected: {
    instruction: "Open the Kitchen category page.",
    generator: "failure-relabel",
    parentTaskId: "shop-open-category-1",
    parentTrajectoryIds: ["r1-s2-shop-open-category-1"],
    rule: "template-parameters",
    closestTaskId: "shop-open-category-3",
    similarity: 1
  } satisfies DataOf<typeof TaskExtrapolationRejected>,
  RoundExtrapolated: { round: 1, newTaskIds: ["x-shop-sort-1"], refused: 1 } satisfies DataOf<typeof RoundExtrapolated>,
  DatasetRecordEmitted: {
    recordId: digest({ format: "sft", body: sftBody }),
    round: 1,
    format: "sft",
    trajectoryIds: ["traj-r1-t7-s0"],
    taskId: "shop-wishlist-7",
    body: sftBody,
    blobs: [blob("t0.png")]
  } satisfies DataOf<typeof DatasetRecordEmitted>,
  DatasetSealed: { round: 1, counts: { sft: 3, dpo: 1, rollout: 5 }, recordCount: 9, contentDigest: sha256("records-1") } satisfies DataOf<
    typeof DatasetSealed
  >,
  JobCompleted: { jobId: "j7", outcome: "done", worker: "w-host1-3", attempts: 2, produced: [sha256("e1")], error: null } satisfies DataOf<
    typeof JobCompleted
  >,
  StepsDescribed: {
    source: demo,
    method: "template",
    descriptions: [
      { stepIndex: 0, text: "Type text 'black garlic' into the 'Search'" },
      { stepIndex: 1, text: "Click on a UI element 'Add to Wish List' on the screen." },
      { stepIndex: 2, text: "Set the task's status as 'complete'." }
    ],
    modelCallIds: []
  } satisfies DataOf<typeof StepsDescribed>,
  KeyStepsIdentified: {
    source: demo,
    taskId: "shop-wishlist-7",
    keySteps: [
      { stepIndex: 1, description: "Click on a UI element 'Add to Wish List' on the screen.", reason: "model" },
      { stepIndex: 2, description: "Set the task's status as 'complete'.", reason: "model" }
    ],
    method: "model",
    modelCallIds: [sha256("call-0")]
  } satisfies DataOf<typeof KeyStepsIdentified>
} satisfies { readonly [K in CoreEventType]: unknown }
