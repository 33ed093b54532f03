/**
 * `bun core graph show <task> [--run RUN] [--format text|dot|mermaid] [--json]`: a task's
 * strategy graph (docs/method.md, "The strategy graph") rebuilt from the log alone — the NodeExpanded and PathAdded
 * events of `run.<run>.graph.<task>`, folded as the run's deciders fold them (graphsOf) —
 * by default from the latest run that grew one. Text for people, DOT for Graphviz, Mermaid
 * for Markdown, JSON for programs.
 */
import { Effect } from "effect"
import { renderGraph } from "@core/domain"
import type { GraphFormat, StrategyGraph } from "@core/domain"
import type { CoreEvent } from "@core/events"
import { loadSuites } from "@core/sites/suites"
import { GraphUnfoldable, graphsOf } from "@core/pipeline"
import type { Command } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { CliError, UsageError } from "../Cli.ts"
import { openStore } from "@core/run"
import { isToken, readEvents, runExists, runsWith, unknownRun } from "@core/engine"
import { commonConfigFlags } from "../ConfigFlags.ts"

/** Is the task registered in the workspace or one of the bundled suites' instances? */
export const taskKnown = (taskId: string) =>
  Effect.gen(function* () {
    const registered = yield* readEvents([`ws.task.${taskId}`])
    if (registered.some((e) => e.type === "TaskRegistered")) return true
    const suites = yield* loadSuites().pipe(Effect.orElseSucceed(() => []))
    return suites.some((s) => s.tasks.some((t) => t.id === taskId))
  })

/** The graph of one task as the events of its graph stream build it; a broken log is one line. */
export const foldGraph = (taskId: string, events: ReadonlyArray<CoreEvent>) =>
  Effect.try({
    try: () => graphsOf(events).get(taskId),
    catch: (e) => new GraphUnfoldable({ taskId, reason: e instanceof Error ? e.message : String(e) })
  })

export const graphJson = (runId: string, g: StrategyGraph) => ({
  run_id: runId,
  task: g.taskId,
  nodes: g.nodes.map((n) => ({
    node_id: n.nodeId,
    lf_id: n.lfId,
    description: n.description,
    how: n.how,
    source: n.source,
    semantic_key: n.semanticKey
  })),
  paths: g.paths.map((p) => ({ path_id: p.pathId, node_ids: [...p.nodeIds], source: p.source }))
})

/** The run as a comment after the first line, where DOT and Mermaid both allow one. */
const withRun = (rendered: string, format: GraphFormat, runId: string): string => {
  if (format === "text") return `run ${runId}\n${rendered}`
  const [first, ...rest] = rendered.split("\n")
  return [first, `  ${format === "dot" ? "//" : "%%"} run ${runId}`, ...rest].join("\n")
}

export const graphShow: Command<Failure> = {
  name: "graph show",
  summary: "a task's strategy graph rebuilt from the log (nodes, paths), as text, DOT, Mermaid or JSON",
  positionals: ["task"],
  flags: {
    run: { kind: "string", description: "the run whose graph to show (default: the latest run with one for the task)" },
    format: { kind: "string", description: "text (default), dot or mermaid", choices: ["text", "dot", "mermaid"] },
    json: { kind: "boolean", description: "print one JSON object { run_id, task, nodes, paths }" },
    ...commonConfigFlags
  },
  run: (args) =>
    Effect.gen(function* () {
      if (args.positionals.length !== 1) return yield* new UsageError({ message: "graph show takes one task id (see bun core tasks list)" })
      const taskId = args.positionals[0]!
      if (!isToken(taskId))
        return yield* new UsageError({ message: `${JSON.stringify(taskId)} is not a task id (letters, digits, '-' and '_')` })
      const wanted = args.flags.run as string | undefined
      if (wanted !== undefined && !isToken(wanted)) return yield* unknownRun(wanted)
      const format = (args.flags.format as GraphFormat | undefined) ?? "text"
      const opened = yield* openStore(args, { quiet: args.flags.json === true })
      const { runId, graph } = yield* Effect.provide(
        Effect.gen(function* () {
          let runId: string
          if (wanted !== undefined) {
            if (!(yield* runExists(wanted))) return yield* unknownRun(wanted)
            runId = wanted
          } else {
            const runs = yield* runsWith(`run.*.graph.${taskId}`)
            if (runs.length === 0) {
              return yield* new CliError({
                message: (yield* taskKnown(taskId))
                  ? `no strategy graph for ${taskId} yet: run bun core run --tasks ${taskId} first`
                  : `unknown task ${taskId} (see bun core tasks list)`
              })
            }
            runId = runs.at(-1)!
          }
          const graph = yield* foldGraph(taskId, yield* readEvents([`run.${runId}.graph.${taskId}`]))
          if (graph === undefined) {
            return yield* new CliError({
              message: (yield* taskKnown(taskId))
                ? `run ${runId} has no strategy graph for ${taskId} (was it one of its tasks?)`
                : `unknown task ${taskId} (see bun core tasks list)`
            })
          }
          return { runId, graph }
        }),
        opened.layer
      )
      if (args.flags.json === true) console.log(JSON.stringify(graphJson(runId, graph)))
      else console.log(withRun(renderGraph(graph, format), format, runId).replace(/\n$/, ""))
    })
}
