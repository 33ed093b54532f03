/**
 * @core/evaluation — how good what CORE learned is, judged by ground truth that policies and
 * label functions never see: the held-out success of a policy a run trained — the retrieval
 * policy or the learner, rebuilt from the run's log (ArmModels.ts, PolicyEval.ts) — the
 * report comparing behaviour cloning, CORE's rounds and two ablations over seeds
 * (EvalReport.ts, ReportArms.ts, ReportStats.ts), label-function accuracy on an evaluation
 * set of trajectories no demo showed (LabelEvalSet.ts, LabelAccuracy.ts, LabelEval.ts; for a
 * pack, PackLabels.ts and PackEval.ts) and on deliberate corruptions of right ones
 * (CorruptionSet.ts, CorruptionEval.ts), and a run's metrics against the checkers' verdicts
 * (RunMetrics.ts, LoggedRunMetrics.ts). EVALUATION CODE: it may read the bundled sites'
 * ground truth (tests/boundaries.test.ts); the `core eval` and `core metrics` commands are
 * flags and printing over it.
 *
 * @example
 * const run = sealedRun(events, null) // the run at its last sealed round, or why there is none
 * const { arm } = armAt(run, "learned", tasks.map(heldOutTaskOf))
 * const result = yield* Effect.scoped(Effect.flatMap(evalApp(undefined, config, secrets), ({ app, environment }) =>
 *   evaluatePolicy({ app, environment, tasks, arm, seed: "eval", samples: 1, stepBudget: 12, parallel: 2 }, layer)))
 * result.success_rate
 */
export { EvalError, EvalInputError, EvalSetNotBuilt } from "./EvalError.ts"
export { evalApp, packTasksOf } from "./EvalApp.ts"
export type { EvalApp } from "./EvalApp.ts"
export { armAt, armDigest, EVAL_POLICIES, heldOutTaskOf, learnedRecords, recordsThrough, sealedRun, seedArms } from "./ArmModels.ts"
export type { ArmModel, EvalPolicy, SealedRun, SeedLogs, TrainedArm } from "./ArmModels.ts"
export { evaluatePolicies, evaluatePolicy } from "./PolicyEval.ts"
export type { PolicyEvalOptions, PolicyEvalResult } from "./PolicyEval.ts"
export { evalReport } from "./EvalReport.ts"
export type { ReportSettings, Split, SplitName, SplitTable } from "./EvalReport.ts"
export { bundledArms, heldOutTasks, otherRouteTasks, packArms, policyHeldOut, reportTasks } from "./ReportArms.ts"
export type { ArmPlan, ArmRunners, ReportArms } from "./ReportArms.ts"
export { meanOver, pairedDifference, perTaskMean, summarise } from "./ReportStats.ts"
export type { Interval, PairedInterval, PerSeed } from "./ReportStats.ts"
export { metricsLines, runMetrics } from "./RunMetrics.ts"
export type { RunMetrics, RunMetricsInput } from "./RunMetrics.ts"
export { loggedRunMetrics } from "./LoggedRunMetrics.ts"
export type { LoggedRunMetrics } from "./LoggedRunMetrics.ts"
export { buildLabelEvalSet, EVAL_KINDS, labelEvalSetSummary } from "./LabelEvalSet.ts"
export type {
  JudgedSet,
  BundledEvalKind,
  EvalKind,
  EvalTask,
  EvalTrajectory,
  LabelEvalSet,
  LabelEvalSetOptions,
  LabelEvalSetSummary
} from "./LabelEvalSet.ts"
export { labelTasks, labelTrajectories, labelTrajectoriesWithGraphs, scoreLabels } from "./LabelAccuracy.ts"
export type { LabelScore, TaskLabels, TrajectoryLabel } from "./LabelAccuracy.ts"
export { cachedLabelSet, labelReport, labelSet, labelSetKey, runLabelling, TARGETS } from "./LabelEval.ts"
export type { LabelSetOptions, RunLabelling } from "./LabelEval.ts"
export { buildCorruptionSet } from "./CorruptionSet.ts"
export type { CorruptionSet, CorruptionSetOptions, RunPass, SetAside, SuiteKind } from "./CorruptionSet.ts"
export { corruptionReport, corruptionSetKey, runPassesOf } from "./CorruptionEval.ts"
export { buildPackCorruptionSet, packCorruptionSetKey, stepFileForm } from "./PackCorruptions.ts"
export type { PackCorruptionOptions } from "./PackCorruptions.ts"
export type { CorruptionKeyOptions, CorruptionReport, TypeFigures } from "./CorruptionEval.ts"
export { packLabelScores, packLabelSet } from "./PackLabels.ts"
export { packLabelReport, packRunAgreement } from "./PackEval.ts"
