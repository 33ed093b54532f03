/**
 * One rollout (docs/method.md, "Rollouts and verification"): the policy acts on a task's environment until it
 * answers, declares a status or runs out of steps, and the whole episode becomes one
 * TrajectoryRecorded. The policy sees only the instruction and the observation history
 * (never ground truth); its randomness comes from `Randomness` and its model answers from `Models`,
 * the environment from `Observations` — so replay re-runs the same episode from the log.
 *
 * An environment failure (browser crash, site timeout) restarts the episode, up to
 * `maxAttempts`; a trajectory that never got through is `infra-error`, never a failure.
 *
 * @example
 * const data = yield* rollout({ trajectoryId: trajectoryIdOf(1, "shop-cart-1", 0), taskId: "shop-cart-1", … })
 */
import { Context, Effect, Option } from "effect"
import type { BlobStoreError } from "@core/blobstore"
import { collapse, explorationRulesAt, sitePath } from "@core/domain"
import type { ExplorationVersion, RetrievalVersion } from "@core/domain"
import type { ElementInfo } from "@core/environment"
import type { Action, Observation, TrajectoryStep } from "@core/events"
import {
  EXPLORATION_POLICY,
  explorationPolicy,
  lookupFormIds,
  modelPolicy,
  policyElement,
  RETRIEVAL_POLICY,
  retrievalPolicy
} from "@core/policy"
import type { EpisodeView, RetrievalModel } from "@core/policy"
import { LEARNED_POLICY, learnedPolicy } from "@core/learner"
import type { LearnedModel } from "@core/learner"
import { EnvironmentFailed, Observations, Randomness } from "@core/engine"
import type { Observed } from "@core/engine"
import { COMPLETE, enderOf } from "./EpisodeEnd.ts"
import type { EndCheck } from "./EpisodeEnd.ts"
import type { TrajectoryData } from "./RunState.ts"

/** Trajectory ids name their round, sample and task, so the live environment knows where an episode starts. */
export const trajectoryIdOf = (round: number, taskId: string, sample: number): string => `r${round}-s${sample}-${taskId}`

/** An explorer episode's trajectory id (`x` for explore): its own namespace beside the rollouts'. */
export const explorerIdOf = (round: number, taskId: string, index: number): string => `x${round}-s${index}-${taskId}`

/** Is this an explorer episode's trajectory id? */
export const isExplorerId = (trajectoryId: string): boolean => trajectoryId.startsWith("x") && taskOfTrajectoryId(trajectoryId) !== null

/** The task of a trajectory id made by `trajectoryIdOf` (or an explorer's `x…-` id); null for any other id. */
export const taskOfTrajectoryId = (trajectoryId: string): string | null => trajectoryId.match(/^[rx]\d+-s\d+-(.+)$/)?.[1] ?? null

/** Which policy acts: the seeded exploration policy (no model), one trained in the run, or an OpenAI-compatible multimodal model. */
export type PolicySpec =
  | { readonly kind: "exploration" }
  /** The retrieval policy (libs/policy) trained on the run's sft records so far; the seeded exploration policy where it has no confident match. */
  | { readonly kind: "embedded"; readonly retrieval?: RetrievalVersion }
  | { readonly kind: "model"; readonly model: string; readonly temperature: number; readonly topP: number }
  /** The learner's policy (libs/learner) trained on the run's dataset records so far; the seeded exploration policy before its first model. */
  | { readonly kind: "learned" }

/** The name a trajectory records for its policy (RoundStarted and TrajectoryRecorded's `policy`). */
export const policyName = (p: PolicySpec): string =>
  p.kind === "exploration" ? EXPLORATION_POLICY : p.kind === "embedded" ? RETRIEVAL_POLICY : p.kind === "learned" ? LEARNED_POLICY : p.model

export interface RolloutInput {
  /** The event being handled: model calls are numbered under it. */
  readonly causationId: string
  readonly trajectoryId: string
  readonly taskId: string
  readonly instruction: string
  readonly round: number
  readonly sample: number
  readonly stepBudget: number
  readonly policy: PolicySpec
  /** Episodes tried before the trajectory is `infra-error`; default 3. */
  readonly maxAttempts?: number
  /**
   * The explorer's start (Strategy Graph Expansion b): actions replayed first to reach a
   * graph node's state — their targets found again by role and name — before the policy
   * acts for `stepBudget` more steps. Replayed steps are part of the trajectory.
   */
  readonly prefix?: ReadonlyArray<Action>
  /** What the policy's draws are for (default "policy"; the explorer's are "explore"). */
  readonly purpose?: string
  /** The element the policy may not choose while it explores (role + name): the known way on. */
  readonly avoid?: { readonly role: string; readonly name: string } | null
  /**
   * Where the explorer may rejoin the known way: the demo's steps after the node, each with
   * the page it was taken on. Once exploring has led to a page the demo acted on later —
   * other than the page exploring started from — the demo's actions from there are replayed
   * (targets found again by role and name), so a detour that got somewhere ends with the task
   * done, and its path can join the graph (Strategy Graph Expansion b).
   */
  readonly rejoin?: ReadonlyArray<{ readonly urlBefore: string | null; readonly action: Action }>
  /** Stop bias of the exploration policy (ExplorationOptions); its default when absent. */
  readonly stopBias?: number
  /** The run's `hashRouting`: pages are told apart by the URL's fragment too, as the demo's were recorded. */
  readonly hashRouting?: boolean
  /** The exploration policy's version the run recorded; default "1" (no form filling), as runs before versions played. */
  readonly exploration?: ExplorationVersion
  /** The embedded policy's trained model (policy kind "embedded"); without one it explores. */
  readonly retrieval?: RetrievalModel | null
  /** The learned policy's trained model (policy kind "learned"); without one it explores. */
  readonly learned?: LearnedModel | null
  /**
   * Exploration 5: after each step, the episode ends with `status complete` once its
   * trajectory would satisfy a path of the task's graph (EpisodeEnd); absent, it ends as before.
   */
  readonly end?: EndCheck
}

const decoder = new TextDecoder()

/** Episodes tried before a trajectory is `infra-error`, unless the input says otherwise. */
const MAX_ATTEMPTS = 3

/** The element list an observation's elements blob holds (`{ url, elements }`, env-web's Snapshot). */
export const observedElements = (o: Observed): ReadonlyArray<ElementInfo> => {
  if (o.elements === null) return []
  try {
    const parsed = JSON.parse(decoder.decode(o.elements)) as { elements?: unknown }
    return Array.isArray(parsed.elements) ? (parsed.elements as ReadonlyArray<ElementInfo>) : []
  } catch {
    return []
  }
}

const emptyObservation = (error: string): Observation => ({
  url: null,
  app: null,
  title: null,
  screenshot: null,
  elements: null,
  aria: null,
  truncated: false,
  error
})

/** Model calls of attempt a: a's block of 1000 (the model policy numbers two per step within it). */
const firstCallOf = (attempt: number): number => attempt * 1000

/** The policy the spec names, playing by the versions the run recorded. */
const policyOf = (input: RolloutInput, attempt: number) => {
  const exploration = {
    ...(input.exploration === undefined ? {} : { version: input.exploration }),
    ...(input.stopBias === undefined ? {} : { stopBias: input.stopBias })
  }
  const p = input.policy
  return p.kind === "exploration"
    ? explorationPolicy(exploration)
    : p.kind === "embedded"
      ? retrievalPolicy({ index: input.retrieval ?? null, ...(p.retrieval === undefined ? {} : { version: p.retrieval }), exploration })
      : p.kind === "learned"
        ? learnedPolicy({ model: input.learned ?? null, exploration })
        : modelPolicy({
            model: p.model,
            temperature: p.temperature,
            topP: p.topP,
            causationId: input.causationId,
            calls: firstCallOf(attempt)
          })
}

/**
 * The step as recorded: the action as the environment says to record it (a password typed,
 * sealed), so neither the log nor the policy's own history holds it in clear.
 */
export const stepOf = (action: Action, observed: Observed): TrajectoryStep => ({
  action: observed.performed ?? action,
  observation: observed.observation
})

const ends = (a: Action): boolean => a.kind === "answer" || a.kind === "status"

/**
 * What the explorer may use before it rejoins: links and search boxes move; a detour that
 * changed state on the way (an upvote, a review) would teach the graph a path that depends on it.
 */
const MOVES = new Set(["link", "searchbox"])

/** The first demo step after the node (not the next one: that is the way being avoided) taken on this page. */
export const rejoinAt = (
  rejoin: ReadonlyArray<{ readonly urlBefore: string | null }>,
  startPage: string | null,
  page: string | null
): number => (page === null || page === startPage ? -1 : rejoin.findIndex((r, j) => j > 0 && r.urlBefore === page))

const same = (a: string | null | undefined, b: string | null | undefined) =>
  collapse(a ?? "").toLowerCase() === collapse(b ?? "").toLowerCase()

/** A replayed action aimed at this episode's element of the same role and name; null when the page has none. */
export const retarget = (action: Action, elements: ReadonlyArray<ElementInfo>): Action | null => {
  if (!("target" in action) || action.target === null) return action
  const t = action.target
  const found = elements.find((e) => e.visible && same(e.role, t.role) && same(e.name, t.name))
  if (found === undefined) return null
  return {
    ...action,
    target: { role: found.role, name: found.name, elementId: found.id, text: found.text === "" ? null : found.text }
  } as Action
}

const trajectoryData = (
  input: RolloutInput,
  episode: Pick<TrajectoryData, "initial" | "steps" | "outcome" | "infraError" | "attempts" | "finished">
): TrajectoryData => ({
  trajectoryId: input.trajectoryId,
  taskId: input.taskId,
  round: input.round,
  sample: input.sample,
  policy: policyName(input.policy),
  ...episode
})

export const rollout = (input: RolloutInput) =>
  Effect.gen(function* () {
    const observations = yield* Observations
    const randomness = yield* Randomness
    const maxAttempts = input.maxAttempts ?? MAX_ATTEMPTS
    let lastFailure = "no attempt made"
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const episode = Effect.gen(function* () {
        const first = yield* observations.reset(input.trajectoryId, attempt)
        // The same draws on every attempt: replay fails the earlier attempts before any draw.
        const rng = randomness.draws({ round: input.round, taskId: input.taskId, sample: input.sample, purpose: input.purpose ?? "policy" })
        const policy = policyOf(input, attempt)
        const steps: Array<TrajectoryStep> = []
        let current = first
        const ender = yield* enderOf(input.end, { hashRouting: input.hashRouting === true, trajectoryId: input.trajectoryId, attempt })
        ender?.see(first)
        const act = (k: number, action: Action) =>
          Effect.tap(observations.act(input.trajectoryId, k, action), (o) => Effect.sync(() => ender?.see(o)))
        const end: { finished: TrajectoryData["finished"] } = { finished: undefined }
        // Once the trajectory so far would satisfy a path of the graph, the episode says so and ends.
        const endIfSatisfied = Effect.gen(function* () {
          const pathId = ender === null ? null : yield* ender.satisfied(first.observation, steps, current)
          if (pathId === null) return false
          end.finished = { pathId, step: steps.length }
          current = yield* act(steps.length, COMPLETE)
          steps.push(stepOf(COMPLETE, current))
          return true
        })
        for (const planned of input.prefix ?? []) {
          const action = retarget(planned, observedElements(current))
          // The node's state could not be reached this time: explore from where the episode is.
          if (action === null || ends(action)) break
          current = yield* act(steps.length, action)
          steps.push(stepOf(action, current))
          if (current.observation.error !== null) break
        }
        // Demo pages are recorded as path and query (and fragment, for a hash-routed app): the episode's are compared the same way.
        const pageOf = (url: string | null) => sitePath(url, input.hashRouting === true)
        const startPage = pageOf(current.observation.url)
        const rejoin = input.rejoin
        let rejoined = false
        // The job carries the recorded version: its rules are resolved once per episode.
        const rules = explorationRulesAt(input.exploration)
        for (let explored = 0; explored < input.stepBudget; explored++) {
          const k = steps.length
          const detour = rejoin !== undefined && !rejoined
          // The known way on is the demo's next action on the node's page; the same link elsewhere is another way.
          const avoid = rejoin === undefined || (detour && pageOf(current.observation.url) === startPage) ? (input.avoid ?? null) : null
          const all = observedElements(current)
          // Version 2 detours may also fill a look-up form (search, find, filter) from the instruction.
          const forms = rules.fillsForms && detour ? lookupFormIds(all.map(policyElement)) : new Set<string>()
          // From version 5 no policy (exploration, retrieval, model) is offered an element that leads off the app.
          const offsite = rules.avoidsOffsite
          // From version 10 none is offered an element a click cannot reach (behind a modal, covered): it times out.
          const covered = rules.skipsCovered
          const elements = all.filter(
            (e) =>
              !(offsite && e.offsite === true) &&
              !(covered && e.covered === true) &&
              (avoid === null || !(same(e.role, avoid.role) && same(e.name, avoid.name))) &&
              (!detour || MOVES.has(e.role) || forms.has(e.id))
          )
          const o = current.observation
          const view: EpisodeView = {
            instruction: input.instruction,
            url: o.url,
            title: o.title,
            app: o.app,
            error: o.error,
            elements,
            history: steps.map((s) => ({ action: s.action, url: s.observation.url, error: s.observation.error })),
            stepBudget: k - explored + input.stepBudget,
            step: k,
            page: current.aria === null ? null : decoder.decode(current.aria),
            screenshot: o.screenshot,
            marks: o.marks ?? null
          }
          const action: Action = yield* policy.act(view, rng).pipe(
            // A model server that failed after its retries is infrastructure: the episode is tried again.
            Effect.catchTag("ModelCallFailed", (e) =>
              Effect.fail(new EnvironmentFailed({ trajectoryId: input.trajectoryId, attempt, reason: `policy model: ${e.reason}` }))
            )
          )
          current = yield* act(k, action)
          steps.push(stepOf(action, current))
          if (ends(action) || (yield* endIfSatisfied)) break
          if (!detour || current.observation.error !== null) continue
          const at = rejoinAt(rejoin, startPage, pageOf(current.observation.url))
          if (at < 0) continue
          // Once only: if the known way fails from here, the policy goes on exploring.
          rejoined = true
          for (const step of rejoin.slice(at)) {
            const planned = retarget(step.action, observedElements(current))
            if (planned === null) break
            current = yield* act(steps.length, planned)
            steps.push(stepOf(planned, current))
            if (ends(planned) || current.observation.error !== null || (yield* endIfSatisfied)) break
          }
          if (ends(steps.at(-1)!.action)) break
        }
        const last = steps.at(-1)
        return trajectoryData(input, {
          initial: first.observation,
          steps,
          outcome: last !== undefined && ends(last.action) ? "completed" : "budget-exhausted",
          infraError: null,
          attempts: attempt + 1,
          ...(end.finished === undefined ? {} : { finished: end.finished })
        })
      })
      const result = yield* episode.pipe(
        Effect.catchTag("EnvironmentFailed", (e) => Effect.succeed(e)),
        Effect.ensuring(observations.end(input.trajectoryId))
      )
      if (result instanceof EnvironmentFailed) {
        lastFailure = result.reason
        continue
      }
      return result
    }
    return infraErrorTrajectory(input, lastFailure)
  })

/**
 * The record of an episode that never got through, after every attempt failed with
 * `reason`: what `rollout` records, and what replay re-derives from it. A run whose workers
 * could not play an episode records the same, so its replay holds too.
 */
export const infraErrorTrajectory = (input: RolloutInput, reason: string): TrajectoryData =>
  trajectoryData(input, {
    initial: emptyObservation(reason),
    steps: [],
    outcome: "infra-error",
    infraError: reason,
    attempts: input.maxAttempts ?? MAX_ATTEMPTS
  })

/**
 * Where episodes play when not in this process: a run with `--workers queue` provides it
 * (libs/workers), and every episode a decider asks for is played by a worker and comes
 * back as its record. Replay and in-process runs leave it out, and `rollout` plays the
 * episode here. A worker runs this same `rollout`, so the record, and every decision made
 * on it, are the same either way.
 */
export class RemoteEpisodes extends Context.Service<
  RemoteEpisodes,
  { readonly play: (input: RolloutInput) => Effect.Effect<TrajectoryData, BlobStoreError> }
>()("@core/pipeline/RemoteEpisodes") {}

/** One episode: on a worker when the run has them (RemoteEpisodes), else here. */
export const playEpisode = (input: RolloutInput) =>
  Effect.flatMap(Effect.serviceOption(RemoteEpisodes), (remote) => (Option.isSome(remote) ? remote.value.play(input) : rollout(input)))
