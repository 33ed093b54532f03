/**
 * Every decider CORE runs, in one registry: the pipeline runs them on new events and
 * `bun core replay` re-runs them on a logged run. Other packages add theirs with
 * `withDeciders` (libs/pipeline/Deciders.ts).
 *
 * @example
 * const report = yield* replayRun({ runId, registry: coreDeciders })
 */
import { makeDeciderRegistry } from "./Decider.ts"
import { demoJobs } from "./deciders/DemoJobs.ts"

export const coreDeciders = makeDeciderRegistry([demoJobs])
