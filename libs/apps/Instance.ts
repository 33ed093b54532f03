/**
 * Instances of a pack's app: started by its `instance.start` on a free loopback port,
 * ready once it printed `URL=<base url>` and that URL answers, stopped so that nothing it
 * started outlives it. Every live instance is in a process-wide registry: a scope's
 * finalizer (`CommandApp.layer`, `bun core app check`) stops them on every way out,
 * interruption by SIGINT/SIGTERM included, and `stopAllInstances` ends whatever is left.
 *
 * @example
 * // interruptible: a start that hangs must not hold up Ctrl-C; it stops what it spawned itself.
 * const instance = yield* Effect.acquireRelease(startInstance(pack), stopInstance, { interruptible: true })
 * instance.baseUrl // "http://127.0.0.1:41234/"
 */
import { Effect, Exit, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { oneLine } from "@core/demos"
import { substitute } from "./Argv.ts"
import type { Placeholder } from "./Argv.ts"
import { describeExit, runCommand, spawnCommand } from "./Command.ts"
import type { Spawned } from "./Command.ts"
import type { Pack } from "./Pack.ts"
import { endProcesses, uptimeTicks } from "./Processes.ts"

/** An instance could not be started, reset or evaluated: one line, quoting the app's last output. */
export class InstanceError extends Schema.TaggedError<InstanceError>()("InstanceError", {
  app: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

/** What a caller needs of an instance: where it answers and how the pack's commands name it. */
export interface InstanceRef {
  readonly baseUrl: string
  readonly handle: string
}

export interface Instance extends InstanceRef {
  readonly pack: Pack
  /** `CORE_APP_INSTANCE_TAG` of every process spawned for it; the default handle. */
  readonly tag: string
  /** The port given to the start as `{port}`. */
  readonly port: number
  /** Milliseconds from spawning the start to its first good answer. */
  readonly readyMs: number
}

export interface EvaluationResult {
  readonly pass: boolean
  /** The evaluator's last line of output ("" when it said nothing): why, in its own words. */
  readonly said: string
}

/** Bounds on a pack's commands: stop, reset, evaluate. */
export const STOP_TIMEOUT_MS = 10_000
export const RESET_TIMEOUT_MS = 60_000
export const EVALUATE_TIMEOUT_MS = 60_000
/** How long processes get between SIGTERM and SIGKILL. */
const GRACE_MS = 2000
/** After the start exits, how long its last words may take to come out of the pipe. */
const EXIT_DRAIN_MS = 300
const POLL_MS = 50

/** What the start printed on stdout so far. */
interface Announced {
  url: string | null
  urlProblem: string | null
  handle: string | null
}

interface Live {
  readonly pack: Pack
  readonly tag: string
  readonly port: number
  readonly spawned: Spawned
  readonly spawnedAt: number
  readonly announced: Announced
  exitedAt: number | null
  /** When the start's exit was seen, in /proc's clock ticks since boot: its group's members started by then. */
  exitedTicks: number | null
  drained: boolean
  stopping: Promise<void> | null
}

const registry = new Map<string, Live>()

/** A free loopback port, as the kernel hands them out. */
const freePort = (): number => {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: () => undefined } })
  const port = listener.port
  listener.stop(true)
  return port
}

const LOOPBACK: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "[::1]"])

/** The base URL as announced, or why it is refused: episodes and confinement assume a local app. */
export const loopbackUrl = (text: string): { readonly url: string } | { readonly problem: string } => {
  const shown = oneLine(text, 200)
  try {
    const url = new URL(text)
    // Credentials in the base URL would travel with every request and every recorded URL.
    if (url.username !== "" || url.password !== "") {
      url.username = ""
      url.password = ""
      return {
        problem: `start printed a URL with a user name or password (${url.href}): announce the bare URL and log in with the pack's auth`
      }
    }
    if ((url.protocol === "http:" || url.protocol === "https:") && LOOPBACK.has(url.hostname)) return { url: url.href }
  } catch {
    // Refused below.
  }
  return { problem: `start printed URL=${shown}: not an http(s) URL on loopback (127.0.0.1, localhost or [::1])` }
}

const onStartLine =
  (a: Announced) =>
  (line: string): void => {
    if (line.startsWith("URL=") && a.url === null && a.urlProblem === null) {
      const checked = loopbackUrl(line.slice(4).trim())
      if ("url" in checked) a.url = checked.url
      else a.urlProblem = checked.problem
    } else if (line.startsWith("INSTANCE=") && a.handle === null) {
      const handle = line.slice(9).trim()
      if (handle !== "") a.handle = oneLine(handle, 200)
    }
  }

/** Spawns the start and registers it before anything can fail, so a finalizer always finds it. */
const spawnLive = (pack: Pack): Effect.Effect<Live, InstanceError> =>
  Effect.suspend(() => {
    const tag = `core-app-${pack.config.name}-${randomBytes(6).toString("hex")}`
    const port = freePort()
    const announced: Announced = { url: null, urlProblem: null, handle: null }
    const argv = substitute(pack.config.instance.start, { port: String(port) })
    const started = spawnCommand("start", argv, { cwd: pack.dir, tag, onStdoutLine: onStartLine(announced) })
    if (!started.ok) return Effect.fail(new InstanceError({ app: pack.config.name, reason: started.problem }))
    const live: Live = {
      pack,
      tag,
      port,
      spawned: started.spawned,
      spawnedAt: performance.now(),
      announced,
      exitedAt: null,
      exitedTicks: null,
      drained: false,
      stopping: null
    }
    registry.set(tag, live)
    void started.spawned.proc.exited.then(() => {
      live.exitedAt = performance.now()
      live.exitedTicks = uptimeTicks()
    })
    void started.spawned.drained.then(() => (live.drained = true))
    return Effect.succeed(live)
  })

/** One GET of the base URL: null when it answered 2xx or a redirect, else what happened. */
const probe = (url: string, waitMs: number): Effect.Effect<string | null> =>
  Effect.promise(async () => {
    try {
      const response = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(Math.max(50, Math.min(2000, waitMs))) })
      await response.body?.cancel().catch(() => undefined)
      return response.status >= 200 && response.status < 400 ? null : `${url} answered ${response.status}`
    } catch (e) {
      const code = typeof e === "object" && e !== null && "code" in e ? String(e.code) : ""
      if (code === "ECONNREFUSED" || code === "ConnectionRefused") return `nothing listens at ${url}`
      if (e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError")) return `${url} did not answer in time`
      return `${url}: ${oneLine(e instanceof Error ? e.message : String(e), 80)}`
    }
  })

/** Waits until the instance answers, its start fails, or `readyTimeoutMs` passes. */
const awaitReady = (live: Live): Effect.Effect<Instance, InstanceError> =>
  Effect.gen(function* () {
    const { name, instance: spec } = live.pack.config
    const fail = (reason: string) => new InstanceError({ app: name, reason })
    const deadline = live.spawnedAt + spec.readyTimeoutMs
    const a = live.announced
    // An Appium server answers 404 at its root: the W3C status says whether it is ready.
    const readiness = (url: string) => (live.pack.config.platform === "android" ? joinUrl(url, "/status") : url)
    let lastProbe: string | null = null
    for (;;) {
      if (a.urlProblem !== null) return yield* fail(`${a.urlProblem}; last output: ${live.spawned.output.text}`)
      if (a.url !== null) {
        lastProbe = yield* probe(readiness(a.url), deadline - performance.now())
        if (lastProbe === null) {
          const readyMs = Math.round(performance.now() - live.spawnedAt)
          return {
            pack: live.pack,
            tag: live.tag,
            port: live.port,
            baseUrl: a.url,
            handle: a.handle ?? live.tag,
            readyMs
          } satisfies Instance
        }
      }
      const exit = live.spawned.exit
      const now = performance.now()
      if (exit !== null && a.url === null && (live.drained || now - (live.exitedAt ?? now) > EXIT_DRAIN_MS)) {
        return yield* fail(`start ${describeExit(exit)} before printing URL=…; last output: ${live.spawned.output.text}`)
      }
      if (exit !== null && exit.code !== 0 && a.url !== null) {
        return yield* fail(`start ${describeExit(exit)} before ${a.url} answered; last output: ${live.spawned.output.text}`)
      }
      if (now >= deadline) {
        const why = a.url === null ? "no URL= line" : (lastProbe ?? "no answer")
        return yield* fail(`start did not become ready within ${spec.readyTimeoutMs} ms (${why}); last output: ${live.spawned.output.text}`)
      }
      yield* Effect.sleep(Math.max(1, Math.min(POLL_MS, deadline - now)))
    }
  })

/**
 * Starts one instance of the pack. On failure or interruption everything it spawned is
 * stopped before the effect ends.
 */
export const startInstance = (pack: Pack): Effect.Effect<Instance, InstanceError> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(spawnLive(pack), (live) =>
      restore(awaitReady(live)).pipe(Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : Effect.promise(() => stopLive(live)))))
    )
  )

/**
 * The pack's stop (when the start announced anything, ready or not), then every process of
 * the group or with the tag. A start that had announced nothing yet gets SIGTERM (its own
 * cleanup, docs/app-packs.md) and, if it announced while being ended, the stop afterwards:
 * the stop never runs without a handle or URL to name the instance by.
 */
const stopLive = (live: Live): Promise<void> => {
  live.stopping ??= (async () => {
    try {
      const stop = live.pack.config.instance.stop
      const announced = () => live.announced.url !== null || live.announced.handle !== null
      const runStop = async () => {
        if (stop === null) return
        await runCommand("stop", substitute(stop, valuesOf(live)), { cwd: live.pack.dir, tag: live.tag, timeoutMs: STOP_TIMEOUT_MS })
      }
      const stoppedFirst = announced()
      if (stoppedFirst) await runStop()
      const { proc } = live.spawned
      const leaderAlive = proc.exitCode === null && proc.signalCode === null
      // A dead leader's group may still hold a daemon that cleared its environment (no tag): its members born by the exit.
      const bornBy = leaderAlive ? {} : { bornBy: live.exitedTicks ?? uptimeTicks() }
      await endProcesses({ group: proc.pid, ...bornBy, tag: live.tag }, GRACE_MS)
      if (!stoppedFirst && stop !== null) {
        // Its last words may still be in the pipe.
        await Promise.race([live.spawned.drained, new Promise((r) => setTimeout(r, EXIT_DRAIN_MS))])
        if (announced()) {
          await runStop()
          await endProcesses({ tag: live.tag }, GRACE_MS)
        }
      }
    } catch {
      // Stopping never fails; whatever could be ended was.
    } finally {
      registry.delete(live.tag)
    }
  })()
  return live.stopping
}

const valuesOf = (live: Live): Partial<Record<Placeholder, string>> => ({
  instance: live.announced.handle ?? live.tag,
  port: String(live.port),
  ...(live.announced.url === null ? {} : { base: live.announced.url })
})

/** Stops the instance: its stop command (at most 10 s), then its processes. Idempotent, never fails. */
export const stopInstance = (instance: Pick<Instance, "tag">): Effect.Effect<void> =>
  Effect.uninterruptible(
    Effect.promise(() => {
      const live = registry.get(instance.tag)
      return live === undefined ? Promise.resolve() : stopLive(live)
    })
  )

/** Stops every instance this process started and has not stopped yet. */
export const stopAllInstances = (): Effect.Effect<void> =>
  Effect.uninterruptible(Effect.promise(() => Promise.all([...registry.values()].map(stopLive)).then(() => undefined)))

/** How many instances are live (started or starting, not stopped). */
export const liveInstances = (): number => registry.size

const joinUrl = (base: string, path: string): string => base.replace(/\/+$/, "") + path

/** A task's start URL: its `start` path under the base URL. */
export const taskUrl = (instance: InstanceRef, start: string): string => joinUrl(instance.baseUrl, start)

/** A finished command as a result, or the one line of why it is not one. */
const finished = async (
  kind: string,
  instance: Instance,
  argv: ReadonlyArray<string>,
  extra: Partial<Record<Placeholder, string>>,
  timeoutMs: number
) => {
  const values = { instance: instance.handle, port: String(instance.port), base: instance.baseUrl, ...extra }
  const done = await runCommand(kind, substitute(argv, values), { cwd: instance.pack.dir, tag: instance.tag, timeoutMs })
  if ("problem" in done) return { problem: done.problem }
  if (done.timedOut) return { problem: `${kind} did not finish within ${timeoutMs} ms; last output: ${done.last}`, done }
  return { done }
}

/** Puts the instance back to its initial state, by the pack's reset command or HTTP request. */
export const resetInstance = (instance: Instance): Effect.Effect<void, InstanceError> =>
  Effect.tryPromise({
    try: async () => {
      const reset = instance.pack.config.instance.reset
      if (reset === null) throw new Error(`app ${instance.pack.config.name} has no instance.reset`)
      if (reset.kind === "http") {
        const url = joinUrl(instance.baseUrl, reset.path)
        const response = await fetch(url, {
          method: reset.method,
          redirect: "manual",
          signal: AbortSignal.timeout(RESET_TIMEOUT_MS)
        }).catch((e: unknown) => {
          throw new Error(`reset: ${reset.method} ${reset.path} failed: ${oneLine(e instanceof Error ? e.message : String(e), 120)}`)
        })
        await response.body?.cancel().catch(() => undefined)
        if (response.status < 200 || response.status > 299)
          throw new Error(`reset: ${reset.method} ${reset.path} answered ${response.status}`)
        return
      }
      const r = await finished("reset", instance, reset.command, {}, RESET_TIMEOUT_MS)
      if ("problem" in r) throw new Error(r.problem)
      if (r.done.code !== 0) throw new Error(`reset ${describeExit(r.done)}; last output: ${r.done.last}`)
    },
    catch: (e) => new InstanceError({ app: instance.pack.config.name, reason: e instanceof Error ? e.message : String(e) })
  })

/**
 * Runs the pack's `evaluate` for an episode: exit 0 passes, 1 fails, anything else (or no
 * end within 60 s) is a broken evaluator, not a verdict. For measurement only: a policy
 * never sees it.
 */
export const evaluateEpisode = (instance: Instance, taskId: string, answer: string): Effect.Effect<EvaluationResult, InstanceError> =>
  Effect.tryPromise({
    try: async () => {
      const evaluate = instance.pack.config.evaluate
      if (evaluate === null) throw new Error(`app ${instance.pack.config.name} has no evaluate command`)
      const r = await finished("evaluate", instance, evaluate, { task: taskId, answer }, EVALUATE_TIMEOUT_MS)
      if ("problem" in r) throw new Error(r.problem)
      if (r.done.code === 0 || r.done.code === 1) return { pass: r.done.code === 0, said: r.done.last === "(none)" ? "" : r.done.last }
      throw new Error(`evaluate ${describeExit(r.done)} (0 = pass, 1 = fail); last output: ${r.done.last}`)
    },
    catch: (e) => new InstanceError({ app: instance.pack.config.name, reason: e instanceof Error ? e.message : String(e) })
  })
