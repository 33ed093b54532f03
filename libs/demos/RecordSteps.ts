/**
 * A step file recorded as a demo folder without a person or a display: a headless web
 * environment of its own (browser pool, scratch blob store), `playDemo`, then the folder
 * through `writeDemoFolder` (version 2, the page at reset as `initial`; recordedWith "script":
 * a step file is a script) and loaded back as `bun core ingest` will load it. Nothing is
 * written unless every step played and `accept` (a judgement of the played demo, made while
 * what it played on still holds its state) did not fail: the folder is written only at the
 * end, demo.json last.
 *
 * The episode is any `EnvTask`: a bundled site (`site` + `siteSeed`, with the sites'
 * `episodes`), or an app by `startUrl` and `origins`. Another platform brings its own
 * `environment` (an Android device's), made in the same scratch blob store.
 *
 * @example
 * const { file } = yield* recordSteps({
 *   task: { taskId: "shop-wishlist-add-1", site: "shop", siteSeed: 101 }, episodes: episodeSource(sites),
 *   steps: (yield* loadStepFile("wishlist.json")).steps, out: "demos/shop/shop-wishlist-add-1",
 *   demoId: "shop-wishlist-add-1-steps", tasks: new Set(["shop-wishlist-add-1"])
 * })
 */
import { Effect, Layer, Schema } from "effect"
import type { Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DirectoryBlobStore } from "@core/blobstore"
import type { BlobStore } from "@core/blobstore"
import { BrowserPool, WebEnvironment } from "@core/env-web"
import type { EnvironmentShape, EnvTask, EpisodeSource, ReadSecret } from "@core/environment"
import type { Platform } from "@core/events"
import { loadDemo } from "./Loader.ts"
import { playDemo } from "./PlaySteps.ts"
import type { PlayedStep } from "./PlaySteps.ts"
import type { Step } from "./StepFile.ts"
import { writeDemoFolder } from "./Writer.ts"

/** The browser window a person records in could not be opened or driven. */
export class RecorderFailed extends Schema.TaggedError<RecorderFailed>()("RecorderFailed", {
  doing: Schema.Literals(["start", "record"]),
  reason: Schema.String
}) {
  override get message() {
    return this.doing === "start" ? `cannot start the recorder: ${this.reason}` : `cannot record: ${this.reason}`
  }
}

export interface StepRecordingOptions<E = never> {
  /** The episode to play on; its `taskId` is the demo's task. */
  readonly task: EnvTask
  readonly steps: ReadonlyArray<Step>
  /** The demo folder. */
  readonly out: string
  readonly demoId: string
  /** Task ids a demo may name: the written folder is loaded back with them, as ingest will. */
  readonly tasks: ReadonlySet<string>
  /** Opens bundled-site episodes, for a `task` given as `site` + `siteSeed`. */
  readonly episodes?: EpisodeSource
  /** Variables a password typed in clear is recorded as (the environment's `secretEnvs`). */
  readonly secretEnvs?: ReadonlyArray<string>
  /** Where a step's `secretEnv` finds its value (an app pack's: only what the user allowed it); default the process environment. */
  readonly readSecret?: ReadSecret
  readonly onStep?: (step: PlayedStep, index: number) => void
  /** Plays on this instead of headless Chromium; its observations go to the recording's blob store. */
  readonly environment?: Effect.Effect<EnvironmentShape, never, BlobStore | Scope.Scope>
  /** What the demo says it was recorded on; default web. */
  readonly platform?: Platform
  /** Asked once every step played, before anything is written: failing writes nothing. */
  readonly accept?: (steps: ReadonlyArray<PlayedStep>) => Effect.Effect<void, E>
}

/** Plays `steps` headless and writes them as a core-demo folder in `out`; returns the demo.json path and the step count. */
export const recordSteps = <E = never>(o: StepRecordingOptions<E>) =>
  Effect.gen(function* () {
    // Observations go to a scratch blob store first: only a demo that played to its end is copied out.
    const scratch = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "core-steps-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    )
    const context = yield* Layer.build(BrowserPool.layer().pipe(Layer.merge(DirectoryBlobStore.layer({ dir: scratch }))))
    const env = yield* Effect.provideContext(
      o.environment ??
        WebEnvironment.make({
          screenshots: "key",
          // One episode, then the browser closes: an episode prepared ahead would be thrown away.
          prepareAhead: false,
          ...(o.episodes === undefined ? {} : { episodes: o.episodes }),
          ...(o.secretEnvs === undefined ? {} : { secretEnvs: o.secretEnvs }),
          ...(o.readSecret === undefined ? {} : { readSecret: o.readSecret })
        }),
      context
    )
    const { initial, steps } = yield* playDemo(env, o.task, o.steps, o.onStep === undefined ? {} : { onStep: o.onStep }).pipe(
      Effect.ensuring(env.close())
    )
    if (o.accept !== undefined) yield* o.accept(steps)
    const file = yield* Effect.provideContext(
      writeDemoFolder(steps, o.out, {
        demoId: o.demoId,
        taskId: o.task.taskId,
        recordedWith: "script",
        initial,
        ...(o.platform === undefined ? {} : { platform: o.platform })
      }),
      context
    )
    // What ingest will read: a folder that does not load is a bug here, not the step file's.
    yield* loadDemo(file, { tasks: o.tasks })
    return { file, steps: steps.length }
  }).pipe(Effect.scoped)
