/**
 * `bun core audit trajectory <id> [--run RUN] [--json]`: why a trajectory got its label
 * (docs/architecture.md, "Replay": the audit; the engine is `auditTrajectoryOf` of
 * @core/pipeline) — the task, the demos its strategy graph came from, their key steps,
 * each label function of that graph (code, how it was inferred, its validation), each LF's
 * verdict on this trajectory with the step that satisfied it (the action taken there and the
 * page after it), the graph path that matched, the label, and the dataset records it fed.
 *
 * Everything comes from the log: the run's events and the workspace facts logged before it
 * ended, folded in log order with the run's own fold (evolveRun) up to the verdict, so the
 * graph shown is the one the verdict used (as its round started), not the final one.
 */
import { Effect } from "effect"
import { plural } from "@core/demos"
import { sitePath } from "@core/domain"
import { auditTrajectoryOf } from "@core/pipeline"
import type { StepEvidence, TrajectoryAudit } from "@core/pipeline"
import type { Command } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { CliError, UsageError } from "../Cli.ts"
import { openStore } from "@core/run"
import { isToken, readEvents, runExists, runLog, runsWith, unknownRun } from "@core/engine"
import { commonConfigFlags } from "../ConfigFlags.ts"

// The page as the app showed it, fragment included: a hash-routed app's page is its fragment
// (`/#Draft%20of%20'Generator%20G2'`), and an audit that cut it would show every step on `/`.
const stepLine = (s: StepEvidence): string =>
  `${s.summary} → ${sitePath(s.url, true) ?? "(no URL)"}${s.error === null ? "" : ` (error: ${s.error})`}`

const quote = (s: string): string => JSON.stringify(s)

const render = (a: TrajectoryAudit): ReadonlyArray<string> => {
  const t = a.trajectory
  const held = new Map<number, Array<string>>()
  for (const lf of a.label_functions) {
    if (lf.verdict !== null && lf.verdict.satisfied_at >= 0)
      held.set(lf.verdict.satisfied_at, [...(held.get(lf.verdict.satisfied_at) ?? []), lf.lf_id.slice(0, 12)])
  }
  const lines: Array<string> = [
    `trajectory ${t.id} — run ${t.run_id}, round ${t.round}, sample ${t.sample}, policy ${t.policy}`,
    `outcome      ${t.outcome}, ${plural(t.steps.length, "step")}${t.attempts > 1 ? `, ${t.attempts} attempts` : ""}${t.infra_error === null ? "" : ` (infra error: ${t.infra_error})`}`,
    `task         ${a.task}${a.instruction === null ? "" : ` — ${a.instruction}`}`,
    `graph        the task's graph as round ${a.graph.round} started (the one the verdict used): ${plural(a.graph.nodes, "node")}, ${plural(a.graph.paths.length, "path")}`,
    "",
    "steps"
  ]
  for (const s of t.steps) {
    const lfs = held.get(s.index)
    lines.push(`  ${String(s.index).padStart(2)}  ${stepLine(s)}${lfs === undefined ? "" : `   ← LF ${lfs.join(", ")} held here`}`)
  }
  lines.push("", "source demos")
  if (a.demos.length === 0) lines.push("  none (the graph was empty: no label function judged this trajectory)")
  for (const d of a.demos)
    lines.push(`  ${d.demo_id}${d.steps === null ? "" : `: ${plural(d.steps, "step")}`}${d.file === null ? "" : ` (${d.file})`}`)
  if (a.expanded_from.length > 0) lines.push(`  expanded from the run's trajectories: ${a.expanded_from.join(", ")}`)
  lines.push("", "key steps")
  for (const k of a.key_steps) {
    const outcome = k.lf_id !== null ? `LF ${k.lf_id.slice(0, 12)}` : k.rejected !== null ? `no LF: ${k.rejected}` : "no LF"
    lines.push(
      `  ${k.source.kind} ${k.source.id} step ${k.step_index}: ${k.description}${k.reason === null ? "" : ` (${k.reason})`} → ${outcome}`
    )
  }
  lines.push("", `label functions (${a.label_functions.length})`)
  for (const lf of a.label_functions) {
    lines.push(`  ${lf.lf_id.slice(0, 12)}  node ${lf.node_id} [${lf.how}] ${lf.description}`)
    lines.push(`    from       ${lf.source.kind} ${lf.source.id}${lf.key_step_index === null ? "" : `, key step ${lf.key_step_index}`}`)
    if (lf.inference !== null) {
      const i = lf.inference
      lines.push(
        `    inferred   ${i.method}, evidence ${i.evidence}, ${plural(i.attempts, "attempt")}${i.modelCallIds.length === 0 ? "" : `, model calls ${i.modelCallIds.map((c) => c.slice(0, 12)).join(", ")}`}`
      )
    }
    if (lf.validation !== null) {
      const v = lf.validation
      lines.push(
        `    validation held on its source at step ${v.onDemoAtKeyStep}; on the prefix: ${v.onPrefix ? "held" : "did not hold"}; known failures: ${v.onFailures.length === 0 ? "none known" : v.onFailures.map((f) => `${f.trajectoryId} ${f.result < 0 ? "did not hold" : `held at ${f.result}`}`).join(", ")}`
      )
    }
    const v = lf.verdict
    lines.push(
      `    verdict    ${
        v === null
          ? "not evaluated"
          : v.error !== null
            ? `error: ${v.error}`
            : v.satisfied_at < 0
              ? "did not hold"
              : `held at step ${v.satisfied_at}${v.step === null ? "" : `: ${stepLine(v.step)}`}`
      }`
    )
    if (lf.code !== null) for (const l of lf.code.trimEnd().split("\n")) lines.push(`    | ${l}`)
  }
  lines.push("", "path")
  const p = a.path
  if (p.matched) {
    lines.push(
      `  matched ${p.path_id ?? "(a path no longer in the graph)"}: the verdict's path is start → ${p.node_ids!.join(" → ")} → end`
    )
    if (p.evidence === "goal-state")
      lines.push("  goal-state evidence: what the outcome rests on, held on the demo's pages, not the way there")
    for (const s of p.steps) {
      lines.push(
        `    ${s.node_id} ${quote(s.description)} ${s.step === null ? "held after the previous node (the step is not in the evidence)" : `held at step ${s.step}${s.evidence === null ? "" : `: ${s.evidence.summary}`}`}`
      )
    }
  } else {
    lines.push(`  none matched${p.candidates.length === 0 ? " (the graph had no path)" : ""}`)
    for (const c of p.candidates)
      lines.push(`    ${c.path_id}: ${c.held_in_order} of ${plural(c.node_ids.length, "node")} held in order from the start`)
  }
  if (a.promoted !== null) {
    lines.push(
      "",
      "promoted",
      `  it solved the task by expansion's rule, and a path its round added accepts it: start → ${a.promoted.node_ids.join(" → ")} → end`,
      `  held at steps ${a.promoted.matched.map((m) => m.step).join(", ")}`
    )
  }
  lines.push("", `label        ${a.label ?? "not verified yet"}`, "", "dataset records")
  if (a.dataset_records.length === 0) lines.push("  none (records are emitted when the round's dataset is sealed)")
  for (const r of a.dataset_records)
    lines.push(`  ${r.record_id.slice(0, 12)} ${r.format}${r.as === null ? "" : ` (${r.as})`}, round ${r.round}, task ${r.task_id}`)
  for (const x of a.extrapolated)
    lines.push(
      `  extrapolated: ${x.task_id} ${quote(x.instruction)} (${x.generator}, its first ${plural(x.pseudo_demo_steps, "step")} as the demo)`
    )
  return lines
}

// ---------------------------------------------------------------------------------------
// The command

export const auditTrajectory: Command<Failure> = {
  name: "audit trajectory",
  summary: "why a trajectory got its label: task, demos, key steps, LFs and their verdicts with step evidence, path, label",
  positionals: ["id"],
  flags: {
    run: { kind: "string", description: "the run the trajectory belongs to (default: the latest run with that trajectory id)" },
    json: { kind: "boolean", description: "print one JSON object" },
    ...commonConfigFlags
  },
  run: (args) =>
    Effect.gen(function* () {
      if (args.positionals.length !== 1) {
        return yield* new UsageError({ message: "audit trajectory takes one trajectory id, e.g. r1-s0-<task> or <runId>/r1-s0-<task>" })
      }
      const raw = args.positionals[0]!
      const slash = raw.indexOf("/")
      const fromId = slash === -1 ? undefined : raw.slice(0, slash)
      const trajectoryId = slash === -1 ? raw : raw.slice(slash + 1)
      if (!isToken(trajectoryId) || (fromId !== undefined && !isToken(fromId))) {
        return yield* new UsageError({ message: `${JSON.stringify(raw)} is not a trajectory id (r1-s0-<task>, or <runId>/r1-s0-<task>)` })
      }
      const flagRun = args.flags.run as string | undefined
      if (flagRun !== undefined && fromId !== undefined && flagRun !== fromId) {
        return yield* new UsageError({ message: `--run ${flagRun} and the id's run ${fromId} disagree` })
      }
      const wanted = flagRun ?? fromId
      if (wanted !== undefined && !isToken(wanted)) return yield* unknownRun(wanted)
      const opened = yield* openStore(args, { quiet: args.flags.json === true })
      const audit = yield* Effect.provide(
        Effect.gen(function* () {
          let runId: string
          if (wanted !== undefined) {
            if (!(yield* runExists(wanted))) return yield* unknownRun(wanted)
            const mine = yield* readEvents([`run.${wanted}.traj.${trajectoryId}`])
            if (mine.length === 0) return yield* new CliError({ message: `run ${wanted} has no trajectory ${trajectoryId}` })
            runId = wanted
          } else {
            const runs = yield* runsWith(`run.*.traj.${trajectoryId}`)
            if (runs.length === 0) {
              return yield* new CliError({
                message: `no trajectory ${trajectoryId} in the log (bun core run records them; ids look like r1-s0-<task>)`
              })
            }
            runId = runs.at(-1)!
          }
          const result = auditTrajectoryOf(yield* runLog(runId), runId, trajectoryId)
          if (typeof result === "string") return yield* new CliError({ message: result })
          return result
        }),
        opened.layer
      )
      if (args.flags.json === true) console.log(JSON.stringify(audit))
      else for (const l of render(audit)) console.log(l)
    })
}
