/**
 * Every decider a CORE run uses, in one registry: the driver runs them live and
 * `bun core replay` re-runs them on a logged run.
 *
 * @example
 * const report = yield* replayRun({ runId, registry: pipelineDeciders })
 */
import { coreDeciders, withDeciders } from "@core/replay"
import { labelInference } from "./deciders/LabelInference.ts"

export const pipelineDeciders = withDeciders(coreDeciders, [labelInference])
