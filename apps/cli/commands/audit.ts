/**
 * `bun core audit label-function <id> [--json]`: why a label function exists — its code,
 * the demo and key step it came from, how it was inferred (embedded or model, which
 * evidence, how many attempts), what validation found, and the model calls behind it.
 * Read straight from the log: the audit is the events, nothing derived can drift from it.
 */
import { Effect, Stream } from "effect"
import type { CoreEvent } from "@core/events"
import { EventStore } from "@core/eventstore"
import type { Command } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { CliError, UsageError } from "../Cli.ts"
import { openStore } from "@core/run"
import { readEvents } from "@core/engine"
import { commonConfigFlags } from "../ConfigFlags.ts"

type Of<T extends CoreEvent["type"]> = Extract<CoreEvent, { type: T }>

const collect = (filter: string) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    return (yield* Stream.runCollect(store.readAll({ filter }))).map((r) => r.event)
  })

export const auditLabelFunction: Command<Failure> = {
  name: "audit label-function",
  summary: "show a label function's code, source demo, key step, validation, how it was inferred and its model calls",
  positionals: ["id"],
  flags: {
    json: { kind: "boolean", description: "print one JSON object" },
    ...commonConfigFlags
  },
  run: (args) =>
    Effect.gen(function* () {
      if (args.positionals.length !== 1)
        return yield* new UsageError({ message: "audit label-function takes one label-function id (or a prefix of at least 6 hex digits)" })
      const id = args.positionals[0]!.toLowerCase()
      if (!/^[0-9a-f]{6,64}$/.test(id)) {
        return yield* new UsageError({
          message: `${JSON.stringify(args.positionals[0])} is not a label-function id (hex, at least 6 digits)`
        })
      }
      const opened = yield* openStore(args, { quiet: args.flags.json === true })
      const found = yield* Effect.provide(
        Effect.gen(function* () {
          // Inference writes LFs to `run.*.infer.>`, strategy-graph expansion to `run.*.graph.>`.
          const inferred = (yield* readEvents(["run.*.infer.>", "run.*.graph.>"])).filter(
            (e): e is Of<"LabelFunctionInferred"> => e.type === "LabelFunctionInferred" && e.data.lfId.startsWith(id)
          )
          const ids = [...new Set(inferred.map((e) => e.data.lfId))]
          if (ids.length === 0)
            return yield* new CliError({ message: `no label function ${id} in the log (bun core infer and bun core run write them)` })
          if (ids.length > 1)
            return yield* new CliError({
              message: `${id} is ambiguous: ${ids.length} label functions start with it (${ids
                .slice(0, 3)
                .map((x) => x.slice(0, 12))
                .join(", ")})`
            })
          const latest = inferred.at(-1)!
          const runId = latest.runId!
          const run = yield* collect(`run.${runId}.>`)
          const keySteps = run.findLast(
            (e): e is Of<"KeyStepsIdentified"> =>
              e.type === "KeyStepsIdentified" &&
              e.data.source.kind === latest.data.source.kind &&
              e.data.source.id === latest.data.source.id
          )
          const task = (yield* collect(`ws.task.>`)).findLast(
            (e): e is Of<"TaskRegistered"> => e.type === "TaskRegistered" && e.data.taskId === latest.data.taskId
          )
          const calls = new Set(latest.data.inference.modelCallIds)
          const modelCalls = run.filter((e): e is Of<"ModelCalled"> => e.type === "ModelCalled" && calls.has(e.id))
          return { latest, keySteps, task, modelCalls, runs: [...new Set(inferred.map((e) => e.runId))] }
        }),
        opened.layer
      )
      const { latest, keySteps, task, modelCalls, runs } = found
      const d = latest.data
      const keyStep = keySteps?.data.keySteps.find((k) => k.stepIndex === d.keyStepIndex)
      const report = {
        lf_id: d.lfId,
        task: d.taskId,
        instruction: task?.data.instruction ?? null,
        source: d.source,
        key_step: {
          index: d.keyStepIndex,
          description: d.description,
          reason: keyStep?.reason ?? null,
          method: keySteps?.data.method ?? null
        },
        inference: d.inference,
        validation: d.validation,
        api_version: d.apiVersion,
        run_id: latest.runId,
        event_id: latest.id,
        inferred_in_runs: runs,
        code: d.code,
        model_calls: modelCalls.map((c) => ({
          id: c.id,
          purpose: c.data.purpose,
          model: c.data.model,
          prompt: c.data.prompt,
          finish_reason: c.data.response?.finishReason ?? null,
          error: c.data.error,
          latency_ms: c.data.latencyMs,
          response: c.data.response?.text ?? null
        }))
      }
      if (args.flags.json === true) {
        console.log(JSON.stringify(report))
        return
      }
      const v = d.validation
      const lines = [
        `label function ${d.lfId}`,
        `task         ${d.taskId}${report.instruction ? ` — ${report.instruction}` : ""}`,
        `source       ${d.source.kind} ${d.source.id}, key step ${d.keyStepIndex}: ${d.description}${keyStep ? ` (${keyStep.reason})` : ""}`,
        `inferred     ${d.inference.method}, evidence ${d.inference.evidence}, ${d.inference.attempts} attempt${d.inference.attempts === 1 ? "" : "s"}; LF API v${d.apiVersion}; run ${latest.runId}${runs.length > 1 ? ` (also in ${runs.length - 1} other runs)` : ""}`,
        `validation   held on the demo at step ${v.onDemoAtKeyStep}; on the prefix before step ${d.keyStepIndex}: ${v.onPrefix ? "held" : "did not hold"}; known failures: ${v.onFailures.length === 0 ? "none known" : v.onFailures.map((f) => `${f.trajectoryId} ${f.result < 0 ? "did not hold" : `held at ${f.result}`}`).join(", ")}`,
        `model calls  ${modelCalls.length === 0 ? "none" : ""}`,
        ...modelCalls.map(
          (c) =>
            `  ${c.id.slice(0, 12)} ${c.data.purpose} ${c.data.model} prompt ${c.data.prompt.name} v${c.data.prompt.version} → ${c.data.error ?? c.data.response?.finishReason}, ${Math.round(c.data.latencyMs)} ms`
        ),
        "",
        d.code.trimEnd()
      ]
      for (const l of lines) console.log(l)
    })
}
