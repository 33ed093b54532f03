/**
 * Event builders for decider specifications: every event a spec gives or expects is made
 * here, so a change in an event's shape is fixed in one place. Each is returned as the log
 * gives it back (encoded, then decoded: a builder cannot make an event the store would
 * refuse). Events of the run carry `RUN` and a fixed time; a given event's cause defaults
 * to a stable stand-in, or to the event given as `cause`, as the pipeline would link them.
 *
 * Element lists (the `elements` blobs an observation names) are made with `elements()`:
 * its hash is known at once and the bytes wait in `pendingBlobs` until a spec stores them.
 *
 * @example
 * const started = runStarted({ tasks: ["forum-open-board-1"], rounds: 1, samples: 2 })
 * const home = elements("/forum/", ["link", "Cycling"])
 * const queued = jobQueued({ jobId: "rollout-r1-s0-t", kind: "rollout", round: 1, taskId: "t", params: { trajectoryId: "r1-s0-t", sample: 0, stepBudget: 4 } })
 */
import { Result } from "effect"
import { LEARNER, nodeIdOf, pathIdOf } from "@core/domain"
import { encodeRunConfig, runConfigOf } from "../../RunConfig.ts"
import {
  catalog,
  DatasetSealed,
  DemoIngested,
  digest,
  JobCompleted,
  JobQueued,
  LabelFunctionInferred,
  labelFunctionId,
  makeEvent,
  NodeExpanded,
  PathAdded,
  PolicyTrained,
  RoundCompleted,
  RoundExtrapolated,
  RoundStarted,
  RunStarted,
  runStream,
  sha256,
  TaskExtrapolated,
  TaskRegistered,
  TrajectoryRecorded,
  TrajectoryVerified,
  workspaceStream
} from "@core/events"
import type {
  Action,
  CoreEvent,
  CoreEventType,
  DataOf,
  DemoStep,
  EventDefinition,
  Observation,
  SemanticKey,
  TrajectoryStep
} from "@core/events"

/** The log's event of one type. */
export type EventOfType<T extends CoreEventType> = Extract<CoreEvent, { type: T }>

export const RUN = "spec-run"
export const AT = "2026-12-04T12:00:00.000Z"
export const SEED = "spec-seed"

interface Envelope {
  readonly runId?: string | null
  /** The event that caused this one: its id becomes the causation id. */
  readonly cause?: CoreEvent
  readonly ordinal?: number
}

/** An event as a reader of the log decodes it; a builder's mistake the schema catches is thrown. */
export const asLogged = (e: CoreEvent): CoreEvent => {
  const encoded = catalog.encode(e)
  if (Result.isFailure(encoded)) throw new Error(`spec event ${e.type} does not encode: ${encoded.failure.message}`)
  const decoded = catalog.decode(JSON.parse(encoded.success.json))
  if (Result.isFailure(decoded)) throw new Error(`spec event ${e.type} does not decode: ${decoded.failure.message}`)
  return decoded.success as CoreEvent
}

/** An event of the log; without a cause, a stand-in unique to its stream and data. */
export const event = <D extends EventDefinition>(definition: D, stream: string, data: DataOf<D>, env: Envelope = {}): CoreEvent =>
  asLogged(
    makeEvent(definition, {
      stream,
      runId: env.runId === undefined ? RUN : env.runId,
      causationId: env.cause?.id ?? `given-${digest({ stream, data }).slice(0, 16)}`,
      ordinal: env.ordinal ?? 0,
      recordedAt: AT,
      data
    }) as CoreEvent
  )

// --- blobs ---

const pending = new Map<string, Uint8Array>()

/** Blobs made by the builders, by hash: a spec stores them before it decides. */
export const pendingBlobs = (): ReadonlyMap<string, Uint8Array> => pending

/** A blob's hash, its bytes kept for the spec's blob store. */
export const blob = (content: string | Uint8Array): string => {
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content
  const hash = sha256(bytes)
  pending.set(hash, bytes)
  return hash
}

/** One element of a page: role and name, and its text, value or checked state when they differ from the defaults. */
export type El = readonly [
  role: string,
  name: string,
  more?: { readonly text?: string; readonly value?: string; readonly checked?: boolean }
]

/** An element list as env-web records it (`{ url, elements }`), by hash. */
export const elements = (url: string, ...els: ReadonlyArray<El>): string =>
  blob(
    JSON.stringify({
      url,
      elements: els.map(([role, name, more], i) => ({
        id: `e${i + 1}`,
        role,
        name,
        text: more?.text ?? name,
        value: more?.value ?? null,
        box: null,
        visible: true,
        inViewport: true,
        enabled: true,
        editable: role === "searchbox" || role === "textbox",
        checked: more?.checked ?? null
      }))
    })
  )

// --- run config: the one place that knows its keys ---

export interface RunOptions {
  readonly tasks?: ReadonlyArray<string>
  readonly rounds?: number
  readonly samples?: number
  readonly stepBudget?: number
  /** "learned" came after the schema: a run of it is recorded as every new run is (`run.configVersion` 2). */
  readonly policy?: "exploration" | "embedded" | "model" | "learned"
  /** With "learned": the follow trainer whose versions it takes (`run.trainer`). */
  readonly trainer?: string
  readonly expandPerTask?: number
  readonly explorePerTask?: number
  readonly extrapolatePerTask?: number
  readonly extrapolatedSamples?: number
  readonly heldOut?: ReadonlyArray<string>
  readonly platform?: "web" | "mobile-web" | "android"
  readonly hashRouting?: boolean
  /** `infer.demos`: "all" or demo ids. */
  readonly demos?: "all" | ReadonlyArray<string>
  readonly synthesis?: string
  readonly lfGuide?: string
  /** `run.dataRules`: absent, a run from before the data rules had a version (version 1). */
  readonly dataRules?: "1" | "2" | "3" | "4" | "5" | "6" | "7"
  /** `run.exploration`: absent, the exploration policy's version 1. */
  readonly exploration?: "1" | "2" | "3" | "4" | "5"
  /** A configured model server with this model (`models.baseUrl`, `models.model`); absent: none. */
  readonly model?: string
}

/**
 * A RunStarted config as `bun core run` records it: flat `run.*` keys (and `infer.*`,
 * `models.*`, `app.*`), a key left out when the option is. The only function that names them.
 */
export const runConfig = (o: RunOptions): Record<string, unknown> => {
  const entries: Array<[string, unknown]> = [
    ["run.tasks", o.tasks],
    ["run.rounds", o.rounds],
    ["run.samples", o.samples],
    ["run.stepBudget", o.stepBudget],
    ["run.policy", o.policy],
    ["run.expandPerTask", o.expandPerTask],
    ["run.explorePerTask", o.explorePerTask],
    ["run.extrapolatePerTask", o.extrapolatePerTask],
    ["run.extrapolatedSamples", o.extrapolatedSamples],
    ["run.heldOut", o.heldOut],
    ["run.platform", o.platform],
    ["app.hashRouting", o.hashRouting],
    ["infer.demos", o.demos],
    ["infer.synthesis", o.synthesis],
    ["infer.lfGuide", o.lfGuide],
    ["run.dataRules", o.dataRules],
    ["run.exploration", o.exploration],
    ["models.baseUrl", o.model === undefined ? null : "http://models.test/v1"],
    ["models.model", o.model ?? null]
  ]
  const config = Object.fromEntries(entries.filter(([k, v]) => v !== undefined && !(k === "run.policy" && v === "learned")))
  if (o.policy !== "learned") return config
  // The same run otherwise: its keys as they read, with the learned policy, in a record of the schema.
  const policy = o.trainer === undefined ? { kind: "learned" as const } : { kind: "learned" as const, trainer: o.trainer }
  // A new learned run records the learner version it trains at (the current one), as the engine's do.
  return { ...config, ...encodeRunConfig({ ...runConfigOf(config), policy, learner: LEARNER.current }) }
}

/** A run's (or an infer run's) RunStarted. */
export const runStarted = (
  o: RunOptions & { readonly command?: string; readonly runId?: string; readonly seed?: string } = {}
): CoreEvent => {
  const runId = o.runId ?? RUN
  return asLogged(
    makeEvent(RunStarted, {
      stream: runStream(runId, "run", runId),
      runId,
      causationId: null,
      ordinal: 0,
      recordedAt: AT,
      data: {
        config: runConfig(o),
        configSources: {},
        seed: o.seed ?? SEED,
        code: { commit: null, dirty: false },
        tools: {},
        command: o.command ?? "run"
      }
    }) as CoreEvent
  )
}

// --- workspace facts ---

export interface TaskOptions {
  readonly taskId: string
  readonly instruction: string
  readonly site?: string
  readonly template?: { readonly id: string; readonly parameters: Record<string, string | number> } | null
}

export const taskRegistered = (t: TaskOptions): CoreEvent =>
  event(
    TaskRegistered,
    workspaceStream("task", t.taskId),
    {
      taskId: t.taskId,
      site: t.site ?? "forum",
      suite: t.site ?? "forum",
      template: t.template ?? null,
      instruction: t.instruction,
      siteSeed: 201,
      checker: null,
      platform: "web",
      startUrl: "/forum/",
      app: null
    },
    { runId: null }
  )

/** A demo step: the action, the pages before and after (paths, as demos record them), and the elements after it. */
export const demoStep = (action: Action, urlBefore: string, urlAfter: string, elementsAfter: string | null): DemoStep => ({
  action,
  observation: { screenshot: null, elements: elementsAfter, aria: null },
  urlBefore,
  urlAfter,
  appBefore: null,
  appAfter: null
})

export const demoIngested = (d: { readonly demoId: string; readonly taskId: string; readonly steps: ReadonlyArray<DemoStep> }) =>
  event(
    DemoIngested,
    workspaceStream("demo", d.demoId),
    {
      demoId: d.demoId,
      taskId: d.taskId,
      source: { kind: "file", ref: `specs/${d.demoId}.json` },
      steps: [...d.steps],
      contentDigest: digest({ taskId: d.taskId, steps: d.steps })
    },
    { runId: null }
  ) as EventOfType<"DemoIngested">

// --- jobs ---

export type JobData = DataOf<typeof JobQueued>

/** A job in its stream (`infer.<demo>` for inference, `traj.<trajectory>` for episodes). */
export const jobQueued = (data: JobData, env: Envelope & { readonly stream?: string } = {}): CoreEvent => {
  const id = typeof data.params.trajectoryId === "string" ? data.params.trajectoryId : String(data.params.demoId ?? data.jobId)
  return event(JobQueued, env.stream ?? runStream(RUN, data.kind === "infer" ? "infer" : "traj", id), data, env)
}

/** The inference job of a demo, as label inference queues it. */
export const inferJob = (demo: EventOfType<"DemoIngested">): CoreEvent => {
  const { demoId, taskId, contentDigest } = demo.data
  return jobQueued({ jobId: `infer-${demoId}`, kind: "infer", round: 0, taskId, params: { demoId, contentDigest } })
}

export const jobCompleted = (
  d: { readonly jobId: string; readonly outcome?: "done" | "failed" | "infra-error"; readonly error?: string | null },
  env: Envelope & { readonly stream: string }
): CoreEvent =>
  event(
    JobCompleted,
    env.stream,
    { jobId: d.jobId, outcome: d.outcome ?? "done", worker: "spec", attempts: 1, produced: [], error: d.error ?? null },
    env
  )

// --- label functions and graphs ---

export type Source = { readonly kind: "demo" | "trajectory"; readonly id: string }

export interface NodeSpec {
  readonly keyStepIndex: number
  readonly description: string
  /** The LF's code (a `labelFunction(t)` against the LF API). */
  readonly code: string
  readonly semanticKey: SemanticKey
}

export const labelFunctionInferred = (taskId: string, source: Source, n: NodeSpec, ordinal = 0): CoreEvent =>
  event(
    LabelFunctionInferred,
    runStream(RUN, "infer", source.id),
    {
      lfId: labelFunctionId(n.code),
      taskId,
      source,
      keyStepIndex: n.keyStepIndex,
      description: n.description,
      code: n.code,
      apiVersion: "1",
      inference: { method: "embedded", evidence: "state", attempts: 1, modelCallIds: [] },
      validation: { onDemoAtKeyStep: n.keyStepIndex, onPrefix: false, onFailures: [] }
    },
    { ordinal }
  )

/** A task's graph from one source: its LFs, a node per LF and the path through them, in key-step order. */
export const graphOf = (taskId: string, source: Source, nodes: ReadonlyArray<NodeSpec>): ReadonlyArray<CoreEvent> => {
  const stream = runStream(RUN, "graph", taskId)
  const nodeIds = nodes.map((n) => nodeIdOf(n.semanticKey))
  return [
    ...nodes.map((n, i) => labelFunctionInferred(taskId, source, n, i)),
    ...nodes.map((n, i) =>
      event(NodeExpanded, stream, {
        taskId,
        nodeId: nodeIds[i]!,
        lfId: labelFunctionId(n.code),
        description: n.description,
        semanticKey: n.semanticKey,
        source,
        how: "demo"
      })
    ),
    event(PathAdded, stream, { taskId, pathId: pathIdOf(taskId, nodeIds), nodeIds, source })
  ]
}

// --- rounds ---

export const roundStarted = (d: {
  readonly round: number
  readonly taskIds: ReadonlyArray<string>
  readonly samplesPerTask?: number
}): CoreEvent =>
  event(RoundStarted, runStream(RUN, "round", String(d.round)), {
    round: d.round,
    taskIds: [...d.taskIds],
    policy: "exploration-v1",
    samplesPerTask: d.samplesPerTask ?? 2
  })

export const roundCompleted = (round: number, counts: Record<string, number> = {}): CoreEvent =>
  event(RoundCompleted, runStream(RUN, "round", String(round)), { round, counts, datasetDigest: null })

export const roundExtrapolated = (round: number, newTaskIds: ReadonlyArray<string> = [], refused = 0): CoreEvent =>
  event(RoundExtrapolated, runStream(RUN, "round", String(round)), { round, newTaskIds: [...newTaskIds], refused })

export const datasetSealed = (round: number, contentDigest = digest(`dataset ${round}`)): CoreEvent =>
  event(DatasetSealed, runStream(RUN, "dataset", String(round)), {
    round,
    counts: { sft: 0, dpo: 0, rollout: 0 },
    recordCount: 0,
    contentDigest
  })

export const policyTrained = (round: number, datasetDigest = digest(`trained ${round}`)): CoreEvent =>
  event(PolicyTrained, runStream(RUN, "round", String(round)), {
    round,
    trainer: "retrieval-v1",
    datasetDigest,
    checkpoint: "sha256:0",
    metrics: {}
  })

// --- trajectories ---

/** What the environment showed: a page's URL and its element list. */
export const observation = (url: string | null, elementsHash: string | null, error: string | null = null): Observation => ({
  url,
  app: null,
  title: null,
  screenshot: null,
  elements: elementsHash,
  aria: null,
  truncated: false,
  error
})

export type TrajectoryData = DataOf<typeof TrajectoryRecorded>

export const trajectoryRecorded = (
  d: Pick<TrajectoryData, "trajectoryId" | "taskId" | "initial"> & {
    readonly round?: number
    readonly sample?: number
    readonly steps: ReadonlyArray<TrajectoryStep>
    readonly outcome?: TrajectoryData["outcome"]
    readonly infraError?: string | null
    readonly attempts?: number
  }
): CoreEvent =>
  event(TrajectoryRecorded, runStream(RUN, "traj", d.trajectoryId), {
    trajectoryId: d.trajectoryId,
    taskId: d.taskId,
    round: d.round ?? 1,
    sample: d.sample ?? 0,
    policy: "exploration-v1",
    initial: d.initial,
    steps: [...d.steps],
    outcome: d.outcome ?? (d.steps.at(-1)?.action.kind === "status" ? "completed" : "budget-exhausted"),
    infraError: d.infraError ?? null,
    attempts: d.attempts ?? 1
  })

export type Verdict = DataOf<typeof TrajectoryVerified>["verdict"]

/** A verdict with each LF's step (`lfId → satisfiedAt`). */
export const trajectoryVerified = (d: {
  readonly trajectoryId: string
  readonly taskId: string
  readonly verdict: Verdict
  readonly evidence?: Readonly<Record<string, number>>
  readonly path?: ReadonlyArray<string> | null
}): CoreEvent =>
  event(TrajectoryVerified, runStream(RUN, "traj", d.trajectoryId), {
    trajectoryId: d.trajectoryId,
    taskId: d.taskId,
    verdict: d.verdict,
    evidence: Object.entries(d.evidence ?? {}).map(([lfId, satisfiedAt]) => ({ lfId, satisfiedAt, error: null })),
    path: d.path == null ? null : [...d.path]
  })

export const taskExtrapolated = (d: {
  readonly newTaskId: string
  readonly instruction: string
  readonly parentTaskId: string
  readonly pseudoDemoTrajectoryId: string
  readonly pseudoDemoSteps: number
}): CoreEvent =>
  event(TaskExtrapolated, runStream(RUN, "task", d.newTaskId), {
    newTaskId: d.newTaskId,
    instruction: d.instruction,
    generator: "success-augmentation",
    lineage: {
      parentTrajectoryIds: [d.pseudoDemoTrajectoryId],
      parentTaskId: d.parentTaskId,
      generatorVersion: "embedded-template-v1",
      promptDigest: null
    },
    pseudoDemoTrajectoryId: d.pseudoDemoTrajectoryId,
    pseudoDemoSteps: d.pseudoDemoSteps,
    template: null
  })
