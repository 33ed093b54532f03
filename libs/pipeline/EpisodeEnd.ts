/**
 * Episodes that finish (exploration 5; docs/method.md, "Rollouts and verification"): after
 * each step it takes (an explorer's replayed prefix aside: that is the known way to where it
 * starts), a rollout or explorer episode asks whether its trajectory so far, with a
 * `status complete` added, would satisfy a path of its task's strategy graph as verification
 * would judge it — the graph as the round started, CORE's own label functions run in the
 * sandbox, the run's data rules. When one would, the episode declares `status complete` there
 * instead of wandering off and ending on another page, or never ending.
 *
 * Only CORE's inferred verifier is read: never an app's own check or any ground truth. Paths
 * that end in an answer are left out — the answer is the policy's to give, and its `answer`
 * ends the episode. The check reads only the episode's observations and the label functions'
 * verdicts (deterministic: `ok` and `error` are the same in any sandbox), so replay, and a
 * driver checking a worker's record, re-derive it.
 *
 * Cost, per step: each candidate path's last LF once on the trajectory (usually one
 * evaluation: the final status's LF holds only on the page it names); only when one holds,
 * the exact verdict over the paths whose last LF held. That first filter asks the last LF on
 * the whole trajectory where verification asks it from the step after the previous node's: an
 * LF that held only on a suffix would be missed, and the episode would only play on as before.
 * The filter can make the check miss an ending, never make one verification would not pass.
 *
 * @example
 * const check = endCheckOf(graph, lfs, "4") // null when no path can end with a status
 * const ender = yield* enderOf(check ?? undefined, { hashRouting: false, trajectoryId, attempt })
 * ender?.see(first) // … and every observation after it
 * const pathId = yield* ender!.satisfied(first.observation, steps, current) // string | null
 */
import { Effect, Option, Schema } from "effect"
import { dataRulesAt, fromRecordedSteps, lfElements, queryKey } from "@core/domain"
import type { LfElement, LfResult, LfTrajectory, StrategyGraph } from "@core/domain"
import { SemanticKey, sha256, SourceRef } from "@core/events"
import type { Action, Observation, TrajectoryStep } from "@core/events"
import { EnvironmentFailed } from "@core/engine"
import type { Observed } from "@core/engine"
import { Sandbox } from "@core/sandbox"
import { DataRules } from "./RunConfig.ts"
import { verdictRules, verifyTrajectory } from "./Verification.ts"

/** What an episode checks after each step: the paths that may end with a status, their nodes and LFs, and the run's data rules. */
export const EndCheck = Schema.Struct({
  graph: Schema.Struct({
    taskId: Schema.String,
    nodes: Schema.Array(
      Schema.Struct({
        nodeId: Schema.String,
        lfId: Schema.String,
        description: Schema.String,
        semanticKey: SemanticKey,
        how: Schema.Literals(["demo", "partial", "explorer"]),
        source: SourceRef
      })
    ),
    paths: Schema.Array(
      Schema.Struct({
        pathId: Schema.String,
        nodeIds: Schema.Array(Schema.String),
        source: SourceRef,
        // A goal-state path is held to its pages (data rules 9): the check must know which it is.
        evidence: Schema.optionalKey(Schema.Literal("goal-state"))
      })
    )
  }),
  labelFunctions: Schema.Array(Schema.Struct({ lfId: Schema.String, code: Schema.String })),
  dataRules: DataRules
})
export type EndCheck = typeof EndCheck.Type

/** The status the episode ends with when a path holds. */
export const COMPLETE: Action = { kind: "status", status: "complete" }

/**
 * The check for a task's graph: its paths that do not end in an answer, with only their
 * nodes and label functions (what the check needs, and all a worker is sent); null when no
 * path could end with a status, and then nothing is checked.
 */
export const endCheckOf = (
  graph: StrategyGraph,
  codes: ReadonlyMap<string, { readonly code: string }>,
  dataRules: EndCheck["dataRules"]
): EndCheck | null => {
  const kindOf = new Map(graph.nodes.map((n) => [n.nodeId, n.semanticKey.actionKind]))
  const paths = graph.paths.filter((p) => p.nodeIds.length > 0 && kindOf.get(p.nodeIds.at(-1)!) !== "answer")
  if (paths.length === 0) return null
  const used = new Set(paths.flatMap((p) => p.nodeIds))
  const nodes = graph.nodes.filter((n) => used.has(n.nodeId))
  const lfIds = [...new Set(nodes.map((n) => n.lfId))]
  return {
    graph: { taskId: graph.taskId, nodes, paths },
    labelFunctions: lfIds.flatMap((lfId) => {
      const code = codes.get(lfId)?.code
      return code === undefined ? [] : [{ lfId, code }]
    }),
    dataRules
  }
}

const decoder = new TextDecoder()

const failed = (trajectoryId: string, attempt: number, reason: string) =>
  new EnvironmentFailed({ trajectoryId, attempt, reason: `label sandbox: ${reason}` })

/**
 * One attempt's check. `see` every observation the episode gets (its elements are what the
 * LFs read); `satisfied` after a step: the id of a path the trajectory so far plus a
 * `status complete` would satisfy, or null. A sandbox that cannot decide fails the attempt
 * like an environment failure: the episode is tried again, and replay fails it the same way.
 */
export const episodeEnder = (
  check: EndCheck,
  o: { readonly hashRouting: boolean; readonly trajectoryId: string; readonly attempt: number },
  sandbox: Sandbox["Service"]
) => {
  const elements = new Map<string, ReadonlyArray<LfElement> | null>()
  const codes = new Map(check.labelFunctions.map((lf) => [lf.lfId, lf.code]))
  const graph: StrategyGraph = check.graph
  const lfOfNode = new Map(graph.nodes.map((n) => [n.nodeId, n.lfId]))
  const see = (observed: Observed) => {
    const hash = observed.observation.elements
    if (hash === null || observed.elements === null || elements.has(hash)) return
    try {
      elements.set(hash, lfElements(JSON.parse(decoder.decode(observed.elements))))
    } catch {
      elements.set(hash, null)
    }
  }
  const satisfied = (initial: Observation, steps: ReadonlyArray<TrajectoryStep>, current: Observed) =>
    Effect.gen(function* () {
      see(current)
      // The status as the environment would record it on this page: the page does not move.
      const ended = [...steps, { action: COMPLETE, observation: current.observation }]
      const trajectory: LfTrajectory = fromRecordedSteps(initial, ended, (h) => elements.get(h) ?? null, o.hashRouting)
      const key = `end:${sha256(JSON.stringify(trajectory))}`
      // First the paths' last LFs: a path whose last LF does not hold is not walked.
      const lasts = [...new Set(graph.paths.map((p) => lfOfNode.get(p.nodeIds.at(-1)!)!))].filter((lfId) => codes.has(lfId))
      const verdicts = yield* sandbox.evaluateBatch(
        lasts.map((lfId) => ({ code: codes.get(lfId)!, trajectory: { key, value: trajectory } }))
      )
      const known = new Map<string, LfResult>()
      for (const [i, v] of verdicts.entries()) {
        if (v.kind === "infra-error") return yield* failed(o.trajectoryId, o.attempt, v.reason)
        known.set(queryKey({ lfId: lasts[i]!, from: 0 }), v.kind === "ok" ? { satisfiedAt: v.satisfiedAt } : { error: v.reason })
      }
      const held = (p: StrategyGraph["paths"][number]) => {
        const r = known.get(queryKey({ lfId: lfOfNode.get(p.nodeIds.at(-1)!)!, from: 0 }))
        return r !== undefined && "satisfiedAt" in r && r.satisfiedAt >= 0
      }
      const paths = graph.paths.filter(held)
      if (paths.length === 0) return null
      const used = new Set(paths.flatMap((p) => p.nodeIds))
      const candidates: StrategyGraph = { ...graph, nodes: graph.nodes.filter((n) => used.has(n.nodeId)), paths }
      const r = yield* verifyTrajectory({
        graph: candidates,
        codes,
        trajectory,
        key,
        rules: verdictRules(dataRulesAt(check.dataRules), graph, trajectory),
        known
      }).pipe(Effect.provideService(Sandbox, sandbox))
      if (r.kind === "infra-error") return yield* failed(o.trajectoryId, o.attempt, r.reason)
      return r.verdict.verdict === "pass" ? r.verdict.pathId : null
    })
  return { see, satisfied }
}

/**
 * The ender for an episode whose input carries a check, with the sandbox of the process;
 * null without a check. A check without a sandbox is a wiring fault, not an episode's
 * failure: every process that plays checked episodes (a run, replay, a worker) provides one.
 */
export const enderOf = (
  check: EndCheck | undefined,
  o: { readonly hashRouting: boolean; readonly trajectoryId: string; readonly attempt: number }
) =>
  check === undefined
    ? Effect.succeed(null)
    : Effect.flatMap(Effect.serviceOption(Sandbox), (sandbox) =>
        Option.isSome(sandbox)
          ? Effect.succeed(episodeEnder(check, o, sandbox.value))
          : Effect.die(new Error(`episode ${o.trajectoryId} ends on a satisfied path, which needs the label sandbox; none is provided`))
      )
