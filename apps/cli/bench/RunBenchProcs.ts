/**
 * The processes `bench run` starts, each tied to the bench's scope so that the end of the
 * bench — finished, failed or interrupted — stops them: a nats-server of its own on a free
 * loopback port, `bun core worker` subprocesses, and `bun core …` commands run to their
 * end. Their output goes to files in the bench's temp dir; a failure quotes the last line.
 * CPU time is read from /proc (ticks of the process and of the children it has reaped).
 *
 * @example
 * const nats = yield* startNats(join(dir, "nats"), join(dir, "nats.log"))
 * const w1 = yield* startWorker("w1", common, join(dir, "w1.log"))
 * const r = yield* runCore(["run", …common, "--json"], join(dir, "run.log"))
 */
import { Effect } from "effect"
import { appendFileSync, existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { Subprocess } from "bun"
import { BenchError } from "./StoreBench.ts"

const MAIN = join(import.meta.dir, "..", "main.ts")

/** `bun core` as this process runs it. */
const coreCommand = (args: ReadonlyArray<string>): Array<string> => [process.execPath, MAIN, ...args]

const lastLine = (file: string): string => {
  try {
    const lines = readFileSync(file, "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "")
    return lines.findLast((l) => l.startsWith("error:")) ?? lines.at(-1) ?? "(no output)"
  } catch {
    return "(no output)"
  }
}

/** Asks the process to stop, then kills it if it has not within `graceMs`; resolves once it is gone. */
const stop = (proc: Subprocess, graceMs: number): Promise<void> => {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve()
  proc.kill("SIGTERM")
  return Promise.race([proc.exited.then(() => true), Bun.sleep(graceMs).then(() => false)]).then(async (gone) => {
    if (!gone) {
      proc.kill("SIGKILL")
      await proc.exited
    }
  })
}

/** Resolves when `file` holds `ready`; fails when the process exits first or `ms` pass. */
const waitFor = (proc: Subprocess, file: string, ready: RegExp, ms: number, what: string) =>
  Effect.tryPromise({
    try: async () => {
      const until = Date.now() + ms
      while (Date.now() < until) {
        if (existsSync(file) && ready.test(readFileSync(file, "utf8"))) return
        if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`exited: ${lastLine(file)}`)
        await Bun.sleep(50)
      }
      throw new Error(`not ready after ${ms / 1000} s: ${lastLine(file)}`)
    },
    catch: (e) => new BenchError({ message: `${what}: ${e instanceof Error ? e.message : String(e)}` })
  })

/** A port nothing listens on right now (the server may still lose it to another process: then we retry). */
const freePort = (): number => {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: () => undefined } })
  const port = probe.port
  probe.stop(true)
  return port
}

export interface NatsServer {
  readonly url: string
  readonly pid: number
  readonly version: string
}

/** nats-server with JetStream on a free 127.0.0.1 port, its store in `storeDir`: never the shared server on 4222. */
export const startNats = (storeDir: string, logFile: (attempt: number) => string) =>
  Effect.gen(function* () {
    const bin = Bun.which("nats-server")
    if (bin === null) return yield* new BenchError({ message: "bench run starts its own nats-server, and there is none on PATH" })
    const version = Bun.spawnSync([bin, "--version"])
      .stdout.toString()
      .trim()
      .replace(/^nats-server:\s*v?/, "")
    for (let attempt = 1; ; attempt++) {
      const port = freePort()
      const log = logFile(attempt)
      const proc = yield* Effect.acquireRelease(
        Effect.sync(() =>
          Bun.spawn([bin, "-a", "127.0.0.1", "-p", String(port), "-js", "-sd", storeDir], {
            stdin: "ignore",
            stdout: "ignore",
            stderr: Bun.file(log)
          })
        ),
        (p) => Effect.promise(() => stop(p, 5_000))
      )
      const ready = yield* Effect.result(waitFor(proc, log, /Server is ready/, 15_000, `nats-server on port ${port}`))
      if (ready._tag === "Success") return { url: `nats://127.0.0.1:${port}`, pid: proc.pid, version } satisfies NatsServer
      yield* Effect.promise(() => stop(proc, 2_000))
      if (attempt === 3) return yield* ready.failure
    }
  })

export interface Worker {
  readonly name: string
  readonly pid: number
  /**
   * When this worker played each episode of `runId` (performance.now() ms): from its
   * `playing …` line to its outcome line, as the bench stamped them arriving — the rollout
   * with its reset and blob puts, then publishing the result and the ack; not the job's way to it.
   */
  readonly played: (runId: string) => ReadonlyArray<{ readonly start: number; readonly end: number }>
  /** Stops it now (SIGTERM: it finishes the episode in hand and closes its browser); the scope's end is then a no-op. */
  readonly stop: Effect.Effect<void>
  /** Fails with the worker's last line once it has exited: raced against a run, a worker that died fails the bench instead of stalling it. */
  readonly died: Effect.Effect<never, BenchError>
}

/** `bun core worker --name <name> --concurrency 1` with `common` (store flags), ready once it pulls jobs. */
export const startWorker = (name: string, common: ReadonlyArray<string>, log: string, onStart: (pid: number) => void = () => undefined) =>
  Effect.gen(function* () {
    const lines: Array<{ readonly at: number; readonly text: string }> = []
    const proc = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const p = Bun.spawn(coreCommand(["worker", "--name", name, "--concurrency", "1", ...common]), {
          stdin: "ignore",
          stdout: "ignore",
          stderr: "pipe"
        })
        onStart(p.pid)
        void (async () => {
          const decoder = new TextDecoder()
          let rest = ""
          for await (const bytes of p.stderr) {
            const text = rest + decoder.decode(bytes, { stream: true })
            appendFileSync(log, text.slice(rest.length))
            const parts = text.split("\n")
            rest = parts.pop() ?? ""
            const at = performance.now()
            for (const line of parts) lines.push({ at, text: line })
          }
        })().catch(() => undefined)
        return p
      }),
      (p) => Effect.promise(() => stop(p, 20_000))
    )
    yield* waitFor(proc, log, /pulling episode jobs/, 60_000, `worker ${name}`)
    const played = (runId: string) => {
      const started = new Map<string, number>()
      const spans: Array<{ start: number; end: number }> = []
      for (const { at, text } of lines) {
        const playing = text.match(/: playing (\S+) of run (\S+) /)
        if (playing !== null && playing[2] === runId) started.set(playing[1]!, at)
        const ended = text.match(/^worker [\w-]+: (\S+) (completed|budget-exhausted|infra-error)$/)
        const t0 = ended === null ? undefined : started.get(ended[1]!)
        if (t0 !== undefined) {
          spans.push({ start: t0, end: at })
          started.delete(ended![1]!)
        }
      }
      return spans
    }
    const died = Effect.flatMap(
      Effect.promise(() => proc.exited),
      (code) => Effect.fail(new BenchError({ message: `bench run: worker ${name} exited ${code}: ${lastLine(log)}` }))
    )
    return { name, pid: proc.pid, played, stop: Effect.promise(() => stop(proc, 20_000)), died } satisfies Worker
  })

export interface CoreResult {
  readonly stdout: string
  readonly pid: number
  /** User + system CPU of the process and of every descendant it reaped (Bun's resourceUsage after exit). */
  readonly cpuMs: number
}

/**
 * `bun core <args>` to its end: stdout returned, stderr into `log`. A non-zero exit fails
 * with the command's last line; an interrupted bench stops the command first.
 */
export const runCore = (args: ReadonlyArray<string>, log: string, onStart: (pid: number) => void = () => undefined) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const proc = Bun.spawn(coreCommand(args), { stdin: "ignore", stdout: "pipe", stderr: Bun.file(log) })
      onStart(proc.pid)
      return proc
    }),
    (proc) =>
      Effect.gen(function* () {
        const [stdout, code] = yield* Effect.promise(() => Promise.all([new Response(proc.stdout).text(), proc.exited]))
        if (code !== 0) return yield* new BenchError({ message: `bun core ${args[0]} ${args[1] ?? ""} exited ${code}: ${lastLine(log)}` })
        const cpu = proc.resourceUsage()?.cpuTime
        return { stdout, pid: proc.pid, cpuMs: cpu === undefined ? Number.NaN : Number(cpu.user + cpu.system) / 1000 } satisfies CoreResult
      }),
    (proc) => Effect.promise(() => stop(proc, 20_000))
  )

/** Clock ticks per second of /proc's CPU fields. */
const TICKS = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100

interface Stat {
  readonly ppid: number
  /** utime + stime + cutime + cstime, in ticks: the process's own and that of the children it reaped. */
  readonly ticks: number
}

const readStat = (pid: string): Stat | null => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "latin1")
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ")
    // Fields from the state (3rd) on: ppid is the 4th, utime … cstime the 14th to 17th.
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) }
  } catch {
    return null // gone since the listing
  }
}

/**
 * CPU milliseconds so far of these processes and all their live descendants (whose own
 * children, once reaped, count in their parents'): read before and after a phase, the
 * difference is what the trees spent in it.
 */
export const treeCpuMs = (roots: ReadonlyArray<number>): number => {
  const stats = new Map<number, Stat>()
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    const s = readStat(name)
    if (s !== null) stats.set(Number(name), s)
  }
  const children = new Map<number, Array<number>>()
  for (const [pid, s] of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid])
  let ticks = 0
  const todo = roots.filter((r) => stats.has(r))
  while (todo.length > 0) {
    const pid = todo.pop()!
    ticks += stats.get(pid)!.ticks
    todo.push(...(children.get(pid) ?? []))
  }
  return (ticks * 1000) / TICKS
}
