/**
 * The work queue under test: `bun core` drivers and workers as child processes against a
 * nats-server of the test's own, their stderr readable line by line while they run, and a
 * run's decisions reduced to what must be the same however its episodes were played.
 */
import type { Subprocess } from "bun"
import { canonicalJson, sha256 } from "@core/events"
import { core, spawnCore } from "./cli.ts"

export interface Running {
  readonly proc: Subprocess<"ignore", "pipe", "pipe">
  /** Everything written to stderr so far. */
  readonly stderr: () => string
  /** Resolves with the first stderr line matching `re` (from the start), or fails after `ms`. */
  readonly waitFor: (re: RegExp, ms?: number) => Promise<string>
  /** stdout once the process has exited. */
  readonly stdout: Promise<string>
}

/** `bun core …` in the background, its stderr collected as it comes. */
export const background = (args: ReadonlyArray<string>, env: Record<string, string>): Running => {
  const proc = spawnCore(args, env) as Subprocess<"ignore", "pipe", "pipe">
  let err = ""
  void (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of proc.stderr) err += decoder.decode(chunk, { stream: true })
  })()
  const stdout = new Response(proc.stdout).text()
  const waitFor = async (re: RegExp, ms = 60_000) => {
    const until = Date.now() + ms
    while (Date.now() < until) {
      const hit = err.split("\n").find((l) => re.test(l))
      if (hit !== undefined) return hit
      await Bun.sleep(50)
    }
    throw new Error(`no line matching ${re} within ${ms} ms; stderr so far:\n${err.slice(-3000)}`)
  }
  return { proc, stderr: () => err, waitFor, stdout }
}

/** A worker of one episode at a time, named `name`. */
export const worker = (name: string, env: Record<string, string>, extra: ReadonlyArray<string> = []): Running =>
  background(["worker", "--name", name, "--concurrency", "1", ...extra], env)

/** Stops background processes and waits until they are gone. */
export const stopAll = async (ps: ReadonlyArray<Running>, signal: "SIGTERM" | "SIGKILL" = "SIGKILL") => {
  for (const p of ps) p.proc.kill(signal)
  await Promise.all(ps.map((p) => p.proc.exited))
}

/** A run's events, in log order. */
export const runEvents = async (runId: string, env: Record<string, string>): Promise<Array<Record<string, any>>> => {
  const r = await core(["events", "tail", "--no-follow", "--filter", `run.${runId}.>`], env)
  if (r.code !== 0) throw new Error(`events tail: ${r.stderr}`)
  return r.stdout
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l))
}

/**
 * The run's decisions with what must differ between two runs taken out: the run id, event
 * ids (references become positions in the log), when each was recorded, and the origin of
 * the app instance an episode played on (each process starts its own). The facts a run
 * starts from (RunStarted: its config and code) and the model calls are not decisions.
 */
export const decisionDigest = (events: ReadonlyArray<Record<string, any>>): string => {
  const runId = events[0]!.runId as string
  const positions = new Map(events.map((e, i) => [e.id as string, `#${i}`]))
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return positions.get(v) ?? v.replaceAll(runId, "RUN").replace(/http:\/\/127\.0\.0\.1:\d+/g, "ORIGIN")
    if (Array.isArray(v)) return v.map(walk)
    if (v !== null && typeof v === "object")
      return Object.fromEntries(
        Object.entries(v)
          .filter(([k]) => k !== "recordedAt" && k !== "position")
          .map(([k, x]) => [k, walk(x)])
      )
    return v
  }
  return sha256(canonicalJson(events.filter((e) => e.type !== "RunStarted" && e.type !== "ModelCalled").map(walk)))
}

/** `run_id` of a run's `--json` metrics. */
export const runIdOf = (stdout: string): string => (JSON.parse(stdout) as { run_id: string }).run_id

/** The trajectory ids a run recorded, each as often as it was recorded. */
export const recorded = (events: ReadonlyArray<Record<string, any>>): Array<string> =>
  events.filter((e) => e.type === "TrajectoryRecorded").map((e) => e.data.trajectoryId as string)
