/**
 * The one shape every policy has, so a rollout asks whichever acts the same way: a name
 * and a version a run records, and `act`, which turns one step's view of the episode and
 * the episode's seeded draws into the next action. Each policy keeps its own version
 * rules inside it; the rollout only builds the view.
 *
 * @example
 * const policy = explorationPolicy({ version: "13" })
 * const action = yield* policy.act(view, randomness.draws({ round, taskId, sample, purpose: "policy" }))
 */
import type { Effect } from "effect"
import type { Action } from "@core/events"
import type { Draws, EpisodeView } from "./PolicyView.ts"

export interface Policy<E = never, R = never> {
  /** What trajectories record as their policy (RoundStarted and TrajectoryRecorded's `policy`). */
  readonly name: string
  /** Which of its rules act: a run keeps the one it recorded, so its episodes replay with the same actions. */
  readonly version: string
  /** The next action. An embedded policy draws from `draws` only; a model policy asks its server and ignores them. */
  readonly act: (view: EpisodeView, draws: Draws) => Effect.Effect<Action, E, R>
}
