/**
 * Verification (docs/method.md, "Rollouts and verification"): a trajectory's graph verdict, with every label function run in
 * the sandbox. The domain's `graphVerdict` says which LFs it needs evaluated from which
 * step; this asks the sandbox in batches until the verdict is known.
 *
 * An LF asked "from step f" whose whole-trajectory answer is already at or after f keeps
 * that answer (the rule `bun core eval labels` measures with); otherwise it runs on the
 * trajectory from f on, so a later occurrence counts. A sandbox `error` (budget, memory, a
 * throw) is the LF not holding, kept as evidence; an `infra-error` that survives the
 * sandbox's own retry makes the verdict `infra-error` — never pass or fail.
 *
 * @example
 * const r = yield* verifyTrajectory({ graph, codes, trajectory, key: `traj:${digest}` })
 * r.kind === "verdict" && r.verdict.verdict // "pass" | "partial" | "fail"
 */
import { Effect } from "effect"
import { acceptOnTheirPages, acceptUnlessRedone, acceptUnlessUndone, fromStep, graphVerdict, queryKey } from "@core/domain"
import type { DataRuleSet, GraphVerdict, LfQuery, LfResult, LfTrajectory, StrategyGraph, VerdictRules } from "@core/domain"
import { Sandbox } from "@core/sandbox"

export interface VerifyInput {
  readonly graph: StrategyGraph
  /** lfId → code, for every LF of the graph. */
  readonly codes: ReadonlyMap<string, string>
  readonly trajectory: LfTrajectory
  /** The sandbox's cache key for the trajectory (unique per trajectory). */
  readonly key: string
  /** How paths are read (commuting form fields, undone goals); the first rules without. */
  readonly rules?: VerdictRules
  /** Results already asked (by `queryKey`): not asked again. */
  readonly known?: ReadonlyMap<string, LfResult>
}

export type VerifyResult =
  | { readonly kind: "verdict"; readonly verdict: GraphVerdict }
  | { readonly kind: "infra-error"; readonly reason: string }

export const verifyTrajectory = (input: VerifyInput) =>
  Effect.gen(function* () {
    const sandbox = yield* Sandbox
    const known = new Map<string, LfResult>(input.known)
    const views = new Map<number, LfTrajectory>()
    const viewFrom = (from: number) => {
      const v = views.get(from) ?? fromStep(input.trajectory, from)
      views.set(from, v)
      return v
    }
    for (;;) {
      const step = graphVerdict(input.graph, (q) => known.get(queryKey(q)), input.rules)
      if (step.kind === "done") return { kind: "verdict", verdict: step.verdict } satisfies VerifyResult
      const ask: Array<LfQuery> = []
      for (const q of step.queries) {
        const whole = known.get(queryKey({ lfId: q.lfId, from: 0 }))
        if (q.from > 0 && whole !== undefined && "satisfiedAt" in whole && whole.satisfiedAt >= q.from) known.set(queryKey(q), whole)
        else ask.push(q)
      }
      if (ask.length === 0) continue
      const requests = ask.map((q) => {
        const code = input.codes.get(q.lfId)
        if (code === undefined) return null
        return q.from === 0
          ? { code, trajectory: { key: input.key, value: input.trajectory } }
          : { code, trajectory: { key: `${input.key}@${q.from}`, value: viewFrom(q.from) } }
      })
      const runnable = requests.filter((r) => r !== null)
      const verdicts = yield* sandbox.evaluateBatch(runnable)
      let next = 0
      for (const [i, q] of ask.entries()) {
        if (requests[i] === null) {
          known.set(queryKey(q), { error: `label function ${q.lfId.slice(0, 12)} has no code in this run` })
          continue
        }
        const v = verdicts[next++]!
        if (v.kind === "infra-error") return { kind: "infra-error", reason: v.reason } satisfies VerifyResult
        known.set(queryKey(q), v.kind === "ok" ? { satisfiedAt: v.satisfiedAt } : { error: v.reason })
      }
    }
  })

/**
 * The rules a run's verdicts follow. Version 2 of the data rules reads form fields on one
 * page in any order and refuses a path whose goal the trajectory undid before its claim;
 * runs recorded before keep the strictly ordered reading they were decided by.
 */
export const verdictRules = (rules: DataRuleSet, graph: StrategyGraph, trajectory: LfTrajectory): VerdictRules => {
  if (!rules.commutesAndRefusesUndone) return {}
  const accepts = [
    acceptUnlessUndone(graph, trajectory),
    ...(rules.refusesRedoneGoals ? [acceptUnlessRedone(graph, trajectory)] : []),
    ...(rules.addsGoalStatePaths ? [acceptOnTheirPages(graph, trajectory, { echoes: rules.goalStateByEchoes })] : [])
  ]
  return {
    commute: true,
    ...(rules.fieldsFilledAtOnce ? { atOnce: true } : {}),
    accept: (path, matched) => accepts.every((accept) => accept(path, matched))
  }
}
