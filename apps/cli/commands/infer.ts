/**
 * `bun core infer (--demo ID | --all) [--json]`: Semantic Code Abstraction over ingested
 * demos. Starts an `infer` run whose label-inference decider describes each demo's steps,
 * identifies its key steps and infers one validated label function per key step (or
 * records why not). Embedded backends unless a model server is configured
 * (`models.baseUrl`); every model call is recorded, so `bun core replay <run>` re-derives
 * the run without the server.
 */
import { Effect, Layer, Stream } from "effect"
import { modelOptionsFromConfig, ModelClient } from "@core/models"
import { runIdentity } from "@core/config"
import { LF_GUIDE, SYNTHESIS } from "@core/domain"
import { plural } from "@core/demos"
import type { CoreEvent } from "@core/events"
import { EventStore } from "@core/eventstore"
import { defaultRunConfig, labelSandbox, modelSources, pipelineDeciders, RUN_CONFIG_KEYS, runConfigCodec } from "@core/pipeline"
import { drive, modelCallRecorder, newRunId, noModels, noObservations, Randomness, startRun } from "@core/engine"
import type { Command } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { CliError, UsageError } from "../Cli.ts"
import { openStore } from "@core/run"
import { commonConfigFlags, configFlags } from "../ConfigFlags.ts"

interface DemoSummary {
  demo: string
  task: string
  steps: number
  key_steps: number
  inferred: number
  rejected: number
  error: string | null
}

export const infer: Command<Failure> = {
  name: "infer",
  summary: "infer label functions from ingested demos (key steps, LF synthesis, validation in the sandbox)",
  flags: {
    demo: { kind: "string", description: "only this demo id" },
    all: { kind: "boolean", description: "every ingested demo (its latest version)" },
    json: { kind: "boolean", description: "print one JSON object { run_id, demos, label_functions, rejected, … }" },
    ...commonConfigFlags,
    ...configFlags(["models.baseUrl", "models.model", "models.apiKeyEnv"])
  },
  run: (args) =>
    Effect.gen(function* () {
      const demoFlag = args.flags.demo as string | undefined
      const all = args.flags.all === true
      if ((demoFlag === undefined) === !all) {
        return yield* new UsageError({ message: "infer takes exactly one of --demo ID or --all" })
      }
      const opened = yield* openStore(args)
      const server = modelOptionsFromConfig(opened.config)
      const started = Date.now()

      const program = Effect.gen(function* () {
        const store = yield* EventStore
        const prior = (yield* Stream.runCollect(store.readAll({ filter: "ws.>" }))).map((r) => r.event)
        const demos = new Map<string, string>()
        for (const e of prior) if (e.type === "DemoIngested") demos.set(e.data.demoId, e.data.taskId)
        if (demos.size === 0) return yield* new CliError({ message: "no demos ingested yet: run 'bun core ingest <dir>' first" })
        if (demoFlag !== undefined && !demos.has(demoFlag)) {
          const known = [...demos.keys()].sort()
          return yield* new CliError({
            message: `no demo ${demoFlag} in the workspace (${known.length} ingested, e.g. ${known.slice(0, 3).join(", ")})`
          })
        }
        const count = demoFlag === undefined ? demos.size : 1

        const runId = yield* newRunId("infer")
        const identity = yield* runIdentity(opened.config)
        // The defaults otherwise: what an infer run's config always read as.
        const config = {
          ...defaultRunConfig(identity.config),
          demos: demoFlag === undefined ? ("all" as const) : [demoFlag],
          lfGuide: LF_GUIDE.current,
          synthesis: SYNTHESIS.current
        }
        const sources = { ...modelSources(identity), [RUN_CONFIG_KEYS.demos]: demoFlag === undefined ? "flag:--all" : "flag:--demo" }
        const runStarted = yield* startRun("infer", { value: config, codec: runConfigCodec, sources }, identity, runId)
        console.error(
          `infer: run ${runId}: ${count} demo${count === 1 ? "" : "s"}, ${server === null ? "embedded backends (no model server configured)" : `model ${server.model} at ${server.baseUrl}`}`
        )

        // Model calls are appended as they happen and handed to the driver, which places them in the fold.
        const calls = modelCallRecorder(store)
        const models = server === null ? noModels : ModelClient.layer({ ...server, runId, record: calls.record })

        const summaries = new Map<string, DemoSummary>()
        let done = 0
        const onEvent = (e: CoreEvent) => {
          const demoId = e.stream.split(".").at(-1)!
          const s = summaries.get(demoId)
          switch (e.type) {
            case "JobQueued":
              summaries.set(demoId, { demo: demoId, task: e.data.taskId, steps: 0, key_steps: 0, inferred: 0, rejected: 0, error: null })
              return
            case "StepsDescribed":
              if (s) s.steps = e.data.descriptions.length
              return
            case "KeyStepsIdentified":
              if (s) s.key_steps = e.data.keySteps.length
              return
            case "LabelFunctionInferred":
              if (s) s.inferred++
              return
            case "LabelFunctionRejected":
              if (s) s.rejected++
              return
            case "JobCompleted":
              done++
              if (s) {
                s.error = e.data.error
                console.error(
                  `infer: ${done}/${count} ${demoId}: ${s.error ?? `${plural(s.key_steps, "key step")}, ${plural(s.inferred, "label function")}, ${s.rejected} rejected`}`
                )
              }
              return
          }
        }
        yield* drive({
          registry: pipelineDeciders,
          runId,
          prior,
          start: [runStarted],
          onEvent,
          inputs: calls
        }).pipe(Effect.provide(Layer.mergeAll(labelSandbox(), models, noObservations, Randomness.layer(identity.seed))))
        return { runId, summaries: [...summaries.values()] }
      })

      const { runId, summaries } = yield* Effect.provide(program, opened.layer)
      const total = (k: "inferred" | "rejected" | "key_steps") => summaries.reduce((n, s) => n + s[k], 0)
      const failed = summaries.filter((s) => s.error !== null)
      const seconds = Math.round((Date.now() - started) / 100) / 10
      if (args.flags.json === true) {
        console.log(
          JSON.stringify({
            run_id: runId,
            demos: summaries.length,
            key_steps: total("key_steps"),
            label_functions: total("inferred"),
            rejected: total("rejected"),
            failed: failed.length,
            seconds,
            per_demo: summaries
          })
        )
      } else {
        console.log(
          `run ${runId}: ${plural(summaries.length, "demo")}, ${plural(total("key_steps"), "key step")}, ${plural(total("inferred"), "label function")} inferred, ${total("rejected")} rejected, ${failed.length} failed (${seconds} s)`
        )
        console.log(`See one: bun core audit label-function <id>   Replay: bun core replay ${runId}`)
      }
      if (failed.length > 0)
        return yield* new CliError({
          message: `${failed.length} demo${failed.length === 1 ? "" : "s"} failed; first: ${failed[0]!.demo}: ${failed[0]!.error}`
        })
    })
}
