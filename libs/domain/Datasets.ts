/**
 * Datasets (docs/method.md, "Datasets"): verified trajectories as the records trainers read.
 *
 * - **sft**: one record per step of a passing trajectory (or a pseudo-demo of an
 *   extrapolated task) — OpenAI-style `messages` (system, user with the page and the
 *   history, assistant with the action as the policy prompt asks for it) and `images`
 *   (screenshot blob hashes; the user turn holds one `<image>` per image). This is core's
 *   own line; the layouts TRL, LLaMA-Factory and verl load are `dataset export --for`'s
 *   (TrainerFormats.ts), checked against their loaders in tests/dataset-formats.test.ts.
 * - **dpo**: a passing and a non-passing trajectory of the same task that were in the same
 *   state (same page, same actions so far) and then acted differently: `prompt`, `chosen`,
 *   `rejected` continuations.
 * - **rollout**: one record per trajectory (its id in the body) with per-step rewards from label-function
 *   satisfaction (each LF that first held at a step adds 1 / the number of LFs) and the
 *   trajectory's reward (1 for a pass, else the sum of its step rewards).
 *
 * Every body also carries `meta` (structured: the action with its target's role and name,
 * the page) for tools that want more than text; trainers may drop it. A record's id is
 * `digest({ format, body })`, so the same example is the same id in every run and replay,
 * and a run emits it once.
 *
 * @example
 * const records = sftRecords(trajectory) // [{ format: "sft", recordId, body, blobs }, …]
 */
import type { Action } from "@core/events"
import { digest } from "@core/events"
import { describeStep } from "./StepDescriptions.ts"
import { lfAction } from "./LfTrajectory.ts"

export type DatasetFormat = "sft" | "dpo" | "rollout"

/** One step as a record shows it: the page the action was taken on, then the action. */
export interface RecordStep {
  readonly url: string | null
  readonly title: string | null
  /** The policy view of the page (env-web's `policyView` text): what the policy saw. */
  readonly view: string
  readonly screenshot: string | null
  readonly action: Action
  /** The environment's complaint about the action, if any (such steps teach nothing). */
  readonly error: string | null
  /** The element list's digest (its blob): with the URL, the state the action was taken in. */
  readonly screen?: string | null
  /** The set-of-marks image of the screenshot (element ids drawn on it), when the episode took one. */
  readonly marks?: string | null
}

export interface RecordTrajectory {
  readonly trajectoryId: string
  readonly taskId: string
  readonly instruction: string
  readonly steps: ReadonlyArray<RecordStep>
}

export interface DatasetRecord {
  readonly recordId: string
  readonly format: DatasetFormat
  readonly taskId: string
  readonly trajectoryIds: ReadonlyArray<string>
  readonly body: Readonly<Record<string, unknown>>
  readonly blobs: ReadonlyArray<string>
}

export const SYSTEM_PROMPT =
  'You operate a graphical user interface on behalf of a user, one action at a time. Choose the single next action that brings the task closer to completion. Answer with one JSON object: {"action": {...}}.'

/**
 * The action as the policy prompt's vocabulary writes it: elements by id, no role or name,
 * and a select by its option's value alone (the label a policy named it by is the record's).
 */
export const policyAnswer = (a: Action): Record<string, unknown> => {
  if (!("target" in a)) return { ...a }
  const { target, ...rest } = a.kind === "select" ? { kind: a.kind, target: a.target, value: a.value } : a
  return target === null ? rest : { ...rest, element: target.elementId }
}

const history = (steps: ReadonlyArray<RecordStep>): string =>
  steps.length === 0
    ? "(none)"
    : steps.map((s, i) => `${i + 1}. ${describeStep(lfAction(s.action))}${s.error === null ? "" : ` (error: ${s.error})`}`).join("\n")

const userTurn = (instruction: string, steps: ReadonlyArray<RecordStep>, k: number) => {
  const s = steps[k]!
  const text = [
    `# Task\n\n${instruction}`,
    `# Current screen\n\nURL: ${s.url ?? "(none)"}\nTitle: ${s.title ?? ""}\n\n${s.view}`,
    `# Actions taken so far\n\n${history(steps.slice(0, k))}`
  ].join("\n\n")
  return {
    content: s.screenshot === null ? text : `<image>\n${text}`,
    images: s.screenshot === null ? [] : [s.screenshot],
    marked: s.screenshot === null ? [] : [s.marks ?? s.screenshot]
  }
}

/**
 * A body's `marked_images`: the same images with the element ids drawn on them, which an
 * export can carry instead (`dataset export --images marked`). Absent when no image has
 * marks, so records of runs without set-of-marks are what they always were.
 */
const markedImages = (images: ReadonlyArray<string>, marked: ReadonlyArray<string>) =>
  marked.some((m, i) => m !== images[i]) ? { marked_images: [...marked] } : {}

const assistant = (a: Action) => ({ role: "assistant", content: JSON.stringify({ action: policyAnswer(a) }) })

/** Structured: what an embedded learner reads (the action with its target's role and name, the history as described). */
const meta = (t: RecordTrajectory, k: number) => {
  const s = t.steps[k]!
  return {
    task_id: t.taskId,
    instruction: t.instruction,
    step: k,
    url: s.url,
    action: s.action as unknown,
    history: t.steps.slice(0, k).map((p) => describeStep(lfAction(p.action)))
  }
}

/** An sft record's `meta`, read back; null when the body is not one. */
export const sftMeta = (
  body: unknown
): { instruction: string; url: string | null; step: number; history: ReadonlyArray<string>; action: Action } | null => {
  const m = (body as { meta?: Record<string, unknown> } | null)?.meta
  if (m === undefined || typeof m.instruction !== "string" || typeof m.step !== "number" || !Array.isArray(m.history)) return null
  const action = m.action as Action | undefined
  if (action === undefined || typeof action !== "object" || action === null || typeof action.kind !== "string") return null
  return { instruction: m.instruction, url: typeof m.url === "string" ? m.url : null, step: m.step, history: m.history.map(String), action }
}

const make = (
  format: DatasetFormat,
  taskId: string,
  trajectoryIds: ReadonlyArray<string>,
  body: Record<string, unknown>,
  blobs: ReadonlyArray<string>
): DatasetRecord => ({
  recordId: digest({ format, body }),
  format,
  taskId,
  trajectoryIds,
  body,
  blobs: [...new Set(blobs)]
})

/**
 * Where an sft record's steps come from, for a trainer that weighs or filters them (data
 * rules 3): a person's demo, a trajectory the graph verified, or the pseudo-demo of a task
 * extrapolated from another trajectory (made by the run, never seen done as such).
 */
export type SftOrigin =
  | { readonly kind: "demo"; readonly demo_id: string }
  | { readonly kind: "verified"; readonly trajectory_id: string }
  | {
      readonly kind: "pseudo-demo"
      readonly parent_trajectory: string
      readonly parent_task: string
      readonly generator: "success-augmentation" | "failure-relabel"
    }

/** One sft record per step of a trajectory that did its task, steps that failed left out; `meta.origin` when given. */
export const sftRecords = (t: RecordTrajectory, origin?: SftOrigin): ReadonlyArray<DatasetRecord> =>
  t.steps.flatMap((s, k) => {
    if (s.error !== null || s.action.kind === "wait") return []
    const user = userTurn(t.instruction, t.steps, k)
    const body = {
      messages: [{ role: "system", content: SYSTEM_PROMPT }, { role: "user", content: user.content }, assistant(s.action)],
      images: user.images,
      ...markedImages(user.images, user.marked),
      meta: origin === undefined ? meta(t, k) : { ...meta(t, k), origin }
    }
    return [make("sft", t.taskId, [t.trajectoryId], body, [...user.images, ...user.marked])]
  })

/** Element ids differ between episodes: two actions are the same when they read the same. */
const sameAction = (a: Action, b: Action): boolean => describeStep(lfAction(a)) === describeStep(lfAction(b))

/**
 * The step at which two trajectories of one task, in the same state until then, first
 * acted differently; -1 when they never did (or the states parted first).
 */
export const divergence = (a: ReadonlyArray<RecordStep>, b: ReadonlyArray<RecordStep>): number => {
  for (let k = 0; k < Math.min(a.length, b.length); k++) {
    if (a[k]!.url !== b[k]!.url || a[k]!.view !== b[k]!.view) return -1
    if (!sameAction(a[k]!.action, b[k]!.action)) return k
  }
  return -1
}

/** A preference pair from the same state, or null when the two never parted from one. */
export const dpoRecord = (chosen: RecordTrajectory, rejected: RecordTrajectory): DatasetRecord | null => {
  const k = divergence(chosen.steps, rejected.steps)
  if (k < 0 || chosen.steps[k]!.error !== null) return null
  const user = userTurn(chosen.instruction, chosen.steps, k)
  const body = {
    prompt: [
      { role: "system", content: SYSTEM_PROMPT },
      { role: "user", content: user.content }
    ],
    chosen: [assistant(chosen.steps[k]!.action)],
    rejected: [assistant(rejected.steps[k]!.action)],
    images: user.images,
    meta: { ...meta(chosen, k), rejected_trajectory: rejected.trajectoryId }
  }
  return make("dpo", chosen.taskId, [chosen.trajectoryId, rejected.trajectoryId], body, user.images)
}

/** Why a step of a passing trajectory is worth preferring: the key step of its verified path it is, or leads to. */
export interface Credit {
  readonly nodeId: string
  readonly lfId: string
  readonly role: "key-step" | "leads-to"
}

/**
 * Preference pairs with credit (data rules 2): `chosen` is a credited step of a passing
 * trajectory — a key step of its verified path or a step leading to one, the path pruned
 * as a pseudo-demo is — and `rejected` what a non-passing trajectory of the task did in the
 * same state: the same URL and the same element list (digest), acting otherwise. At most
 * `cap` pairs per passing trajectory, one per non-passing trajectory, earliest steps first.
 */
export const creditedDpoRecords = (
  chosen: RecordTrajectory,
  credits: ReadonlyMap<number, Credit>,
  others: ReadonlyArray<RecordTrajectory>,
  cap: number
): ReadonlyArray<DatasetRecord> => {
  const out: Array<DatasetRecord> = []
  const used = new Set<string>()
  for (const k of [...credits.keys()].sort((a, b) => a - b)) {
    const c = chosen.steps[k]
    if (c === undefined || c.error !== null || c.screen == null) continue
    for (const other of others) {
      if (out.length >= cap) return out
      if (used.has(other.trajectoryId)) continue
      const j = other.steps.findIndex(
        (r) => r.url === c.url && r.screen === c.screen && r.error === null && !sameAction(r.action, c.action)
      )
      if (j < 0) continue
      used.add(other.trajectoryId)
      const user = userTurn(chosen.instruction, chosen.steps, k)
      const credit = credits.get(k)!
      const body = {
        prompt: [
          { role: "system", content: SYSTEM_PROMPT },
          { role: "user", content: user.content }
        ],
        chosen: [assistant(c.action)],
        rejected: [assistant(other.steps[j]!.action)],
        images: user.images,
        ...markedImages(user.images, user.marked),
        meta: {
          ...meta(chosen, k),
          rejected_trajectory: other.trajectoryId,
          rejected_step: j,
          credited: { node_id: credit.nodeId, lf_id: credit.lfId, role: credit.role },
          credit_rule: "2"
        }
      }
      out.push(make("dpo", chosen.taskId, [chosen.trajectoryId, other.trajectoryId], body, [...user.images, ...user.marked]))
    }
  }
  return out
}

/** Per-step rewards: each LF adds 1/n at the step where it first held (n = the LFs judged). */
export const stepRewards = (steps: number, satisfiedAt: ReadonlyArray<number>): ReadonlyArray<number> => {
  const rewards = Array.from({ length: steps }, () => 0)
  if (satisfiedAt.length === 0) return rewards
  for (const at of satisfiedAt) if (at >= 0 && at < steps) rewards[at]! += 1 / satisfiedAt.length
  return rewards.map((r) => Math.round(r * 1e6) / 1e6)
}

export const rolloutRecord = (t: RecordTrajectory, verdict: string, satisfiedAt: ReadonlyArray<number>): DatasetRecord => {
  const rewards = stepRewards(t.steps.length, satisfiedAt)
  const images: Array<string> = []
  const marked: Array<string> = []
  const steps = t.steps.map((s, k) => {
    if (s.screenshot !== null) marked.push(s.marks ?? s.screenshot)
    const image = s.screenshot === null ? null : images.push(s.screenshot) - 1
    return {
      url: s.url,
      action: policyAnswer(s.action),
      description: describeStep(lfAction(s.action)),
      image,
      error: s.error,
      reward: rewards[k]!
    }
  })
  const sum = Math.round(rewards.reduce((a, b) => a + b, 0) * 1e6) / 1e6
  // The trajectory's id is part of it: a rollout record is one episode, even when another went the same way.
  const body = {
    instruction: t.instruction,
    task_id: t.taskId,
    trajectory_id: t.trajectoryId,
    verdict,
    reward: verdict === "pass" ? 1 : sum,
    steps,
    images,
    ...markedImages(images, marked)
  }
  return make("rollout", t.taskId, [t.trajectoryId], body, [...images, ...marked])
}

/** A round's seal: counts per format and a digest of the sorted record ids. */
export const sealOf = (records: ReadonlyArray<Pick<DatasetRecord, "recordId" | "format">>) => {
  const counts = { sft: 0, dpo: 0, rollout: 0 }
  for (const r of records) counts[r.format]++
  return { counts, recordCount: records.length, contentDigest: digest([...records.map((r) => r.recordId)].sort()) }
}
