/**
 * Every decider CORE runs, in one registry: the pipeline runs them on new events and
 * `bun core replay` re-runs them on a logged run. Later issues append theirs here.
 *
 * @example
 * const report = yield* replayRun({ runId, registry: coreDeciders })
 */
import { makeDeciderRegistry } from "./Decider.ts"
import { demoJobs } from "./deciders/DemoJobs.ts"

export const coreDeciders = makeDeciderRegistry([
  demoJobs
])
