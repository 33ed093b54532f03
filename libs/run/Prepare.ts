/**
 * A run before its first decision: a new run registers its tasks (and the held-out ones of
 * the same apps), makes sure each has a demo and records its RunStarted; a resumed run reads
 * its log back instead. Either way the driver gets the run's id, seed, the workspace facts
 * to fold and the events to start from.
 *
 * @example
 * const prepared = yield* prepareRun(config, plan, app, environments.demo, progress)
 */
import { Effect, Stream } from "effect"
import { plural } from "@core/demos"
import { runIdentity } from "@core/config"
import type { LoadedConfig } from "@core/config"
import { newRunId, readRunLog, startRun } from "@core/engine"
import type { EnvironmentShape } from "@core/environment"
import type { CoreEvent } from "@core/events"
import { EventStore } from "@core/eventstore"
import { modelSources, newRunConfig, RUN_DEFAULTS, registerTasks, runConfigCodec } from "@core/pipeline"
import type { RunApp } from "@core/pipeline"
import { latestPublished } from "@core/trainer"
import { environmentsNamed } from "./PlatformEnvironment.ts"
import { ensureDemos, RunError } from "./RunDemos.ts"
import type { RunPlan } from "./RunPlan.ts"
import type { RunProgress } from "./RunProgress.ts"

export interface PreparedRun {
  readonly runId: string
  readonly seed: string
  /** Workspace facts already in the log (tasks, demos), in log order: folded, not handled. */
  readonly prior: ReadonlyArray<CoreEvent>
  /** A new run's RunStarted; empty when resuming. */
  readonly start: ReadonlyArray<CoreEvent>
  /** A resumed run's logged events and each stream's revision. */
  readonly resume?: { readonly events: ReadonlyArray<CoreEvent>; readonly revisions: ReadonlyMap<string, number> }
}

/**
 * Before a run that takes a follow trainer's versions starts: the trainer's latest version
 * is refused in one line now rather than rounds later, and a trainer that has published
 * nothing yet is said (its rounds explore until it does; a misspelt name would never publish).
 */
const checkTrainer = (trainer: string, progress: RunProgress) =>
  Effect.gen(function* () {
    const { stream, latest } = yield* latestPublished(trainer).pipe(Effect.mapError((e) => new RunError({ message: e.message })))
    progress.line(
      latest === null
        ? `trainer ${trainer}: nothing published on ${stream} yet; a round explores until a version is (is bun core train --follow --consumer ${trainer} running?)`
        : `trainer ${trainer}: version ${latest.version} on ${stream} (${latest.data.records?.count ?? 0} records), weights ${latest.data.weights?.slice(0, 12)}`
    )
  })

/** A logged run read back to be continued. */
const resumed = (plan: RunPlan, resume: NonNullable<RunPlan["resume"]>, progress: RunProgress) =>
  Effect.gen(function* () {
    const log = yield* readRunLog(resume.runId).pipe(Effect.mapError((e) => new RunError({ message: e.message })))
    const revisions = new Map<string, number>()
    for (const r of log.run) revisions.set(r.event.stream, r.position)
    progress.line(
      `run ${resume.runId}: resuming after ${log.run.length} logged events (${plan.tasks.length} tasks, ${plan.rounds} rounds × ${plan.samples} samples)`
    )
    return {
      runId: resume.runId,
      seed: resume.seed,
      prior: log.workspace,
      start: [],
      resume: { events: log.run.map((r) => r.event), revisions }
    } satisfies PreparedRun
  })

export const prepareRun = (config: LoadedConfig, plan: RunPlan, app: RunApp, demoEnvironment: EnvironmentShape, progress: RunProgress) =>
  Effect.gen(function* () {
    if (plan.resume !== undefined) return yield* resumed(plan, plan.resume, progress)
    // Before demos are recorded: a trainer's bad version should not cost their time.
    if (plan.policy === "learned" && plan.trainer !== undefined) yield* checkTrainer(plan.trainer, progress)
    const store = yield* EventStore
    const platform = plan.platform ?? RUN_DEFAULTS.platform
    yield* registerTasks(plan.tasks.map((t) => t.registration))
    // Held-out tasks of the same apps are registered too: the contamination guard keeps generated tasks away from them.
    const heldOut = yield* app.heldOut(plan.tasks).pipe(Effect.mapError((e) => new RunError({ message: e.message })))
    yield* registerTasks(heldOut.map((t) => t.registration))
    const demos = yield* ensureDemos(app, demoEnvironment, plan.tasks, config.values.dataDir, platform, (l) => progress.line(l))
    const prior = (yield* Stream.runCollect(store.readAll({ filter: "ws.>" }))).map((r) => r.event)
    const runId = yield* newRunId(plan.command)
    const identity = yield* runIdentity(config)
    const run = newRunConfig(
      {
        ...plan,
        tasks: plan.tasks.map((t) => t.id),
        heldOut: heldOut.map((t) => t.id),
        demos: plan.tasks.flatMap((t) => (demos.has(t.id) ? [demos.get(t.id)!] : []))
      },
      identity.config
    )
    if (run === null)
      return yield* new RunError({ message: "--policy model needs the model's name: set models.model (bun core config show)" })
    const recorded = {
      value: run,
      codec: runConfigCodec,
      ...(plan.extra === undefined ? {} : { extra: plan.extra }),
      sources: { ...modelSources(identity), ...plan.sources }
    }
    const started = yield* startRun("run", recorded, identity, runId).pipe(Effect.mapError((e) => new RunError({ message: e.message })))
    const policy =
      run.policy.kind === "model"
        ? `model ${run.policy.model}`
        : run.policy.kind === "embedded"
          ? "embedded (retrieval, trained on each round's data)"
          : run.policy.kind === "learned"
            ? run.policy.trainer === undefined
              ? "learned (the learner, trained on each round's data)"
              : `learned (the latest version trainer ${run.policy.trainer} published, taken at each round's start)`
            : "exploration (seeded, no model)"
    progress.line(
      `run ${runId}: ${plural(plan.tasks.length, "task")}, ${plural(plan.rounds, "round")} × ${plural(plan.samples, "sample")}, policy ${policy}, ${plan.parallel} ${environmentsNamed[platform]}`
    )
    return { runId, seed: identity.seed, prior, start: [started] } satisfies PreparedRun
  })
