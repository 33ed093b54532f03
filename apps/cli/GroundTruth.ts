/**
 * EVALUATION (DESIGN §8): what a site's checker says of an ended episode — its final page,
 * last answer and last status, in the episode's own site state. Shared by a run's metrics
 * and by policy evaluation; never an input to CORE's decisions.
 */
import { Effect } from "effect"
import { sitePath } from "@core/domain"
import type { EpisodeEnd } from "@core/pipeline"
import type { SitesServer } from "@core/sites"
import { verdictOf } from "@core/sites/solutions"
import type { SuiteTask } from "@core/sites/suites"

/** The checker's verdict on the episode; a failure when it never reached a site episode. */
export const episodeVerdict = (sites: SitesServer, task: SuiteTask, end: EpisodeEnd) => {
  const tenant = end.last?.episode ?? null
  if (tenant === null) return Effect.succeed({ success: false, reason: "the episode never reached the site" })
  const last = (kind: "answer" | "status") => end.actions.filter((a) => a.kind === kind).at(-1)
  const answer = last("answer")
  const status = last("status")
  return verdictOf(sites, task, tenant, {
    steps: [], finalUrl: sitePath(end.last?.observation.url ?? null),
    answer: answer?.kind === "answer" ? answer.text : null,
    status: status?.kind === "status" ? status.status : null
  })
}
