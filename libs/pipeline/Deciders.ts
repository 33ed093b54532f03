/**
 * Every decider a CORE run uses, in one registry: the driver runs them live and
 * `bun core replay` re-runs them on a logged run. Order matters where two handle one
 * event: the strategy graph grows, and extrapolation adds tasks, on a verdict before the
 * round that verdict completes.
 *
 * @example
 * const report = yield* replayRun({ runId, registry: pipelineDeciders })
 */
import { coreDeciders, withDeciders } from "@core/engine"
import { labelInference } from "./deciders/LabelInference.ts"
import { rollouts, verification } from "./deciders/Rollouts.ts"
import { rounds } from "./deciders/Rounds.ts"
import { datasets } from "./deciders/Datasets.ts"
import { extrapolation } from "./deciders/Extrapolation.ts"
import { policyTraining } from "./deciders/PolicyTraining.ts"
import { strategyGraph } from "./deciders/StrategyGraph.ts"

export const pipelineDeciders = withDeciders(coreDeciders, [
  labelInference,
  strategyGraph,
  extrapolation,
  rollouts,
  verification,
  rounds,
  datasets,
  policyTraining
])
