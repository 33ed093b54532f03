/**
 * The learner's versions (`run.learner`, recorded by learned runs): how the learned policy is
 * trained from a run's records. Replay trains again, so a run keeps the version it recorded,
 * and its weights come out the same. 1 learns from every verified trajectory; 2 leaves out a
 * verified rollout or explorer episode of a task that is longer than the task's shortest demo
 * (or pseudo-demo): it reached the goal after a detour, and imitating the detour's first
 * steps taught the learner to wander off at the start of unseen tasks.
 *
 * @example
 * const rules = learnerRulesAt(config["run.learner"]) // version 1's for learned runs before versions
 * rules.skipsDetours // false
 */
import { axis, rulesAt, type RuleSet, type VersionOf } from "./Versioned.ts"

export const LEARNER = axis("learner", "run.learner", ["1", "2"], "2", {
  /** A non-expert trajectory longer than its task's shortest demo is not trained on. */
  skipsDetours: "2"
})

export type LearnerVersion = VersionOf<typeof LEARNER>
export type LearnerRules = RuleSet<typeof LEARNER>

/** The learner rules of a recorded version (anything else, a run from before versions, is version 1). */
export const learnerRulesAt = (recorded: unknown): LearnerRules => rulesAt(LEARNER, recorded)
