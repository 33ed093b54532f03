/**
 * One worker child process as the pool sees it: how it is started, what it was sent, its
 * watchdog, and the two ways it ends — `stop` (retired, nothing to report) and `kill`
 * (failed: its exit is then reported with the reason).
 */
import type { Subprocess } from "bun"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { FromWorker, ToWorker } from "./Protocol.ts"

const WORKER = join(import.meta.dir, "Worker.ts")
const PAGE_BYTES = 4096

/**
 * A worker gets a 256 MB native stack (reserved, not used) and JavaScriptCore may use it:
 * deep recursion inside QuickJS then ends in QuickJS's own stack-overflow error rather
 * than the host's, which would take the worker down. If `ulimit` is refused, the worker
 * runs with the usual stack and JavaScriptCore stays within it.
 */
const COMMAND = ["/bin/sh", "-c", 'ulimit -s 262144 2>/dev/null; exec "$0" "$@"', process.execPath, WORKER]

/** The worker runs untrusted code: it gets no secrets from our environment. */
const childEnv = (): Record<string, string> => {
  const env: Record<string, string> = { BUN_JSC_maxPerThreadStackUsage: String(240 * 1024 * 1024) }
  for (const k of ["PATH", "HOME", "TMPDIR"]) {
    const v = process.env[k]
    if (v !== undefined) env[k] = v
  }
  return env
}

export class WorkerProcess<Chunk> {
  private readonly proc: Subprocess<"ignore", "ignore", "pipe">
  state: "starting" | "idle" | "busy" | "dead" = "starting"
  evaluations = 0
  /** Trajectory keys this process has been sent (it may have dropped some since: it says so). */
  readonly sent = new Set<string>()
  chunk: Chunk | null = null
  /** Why it was killed, when it was. */
  killReason: string | null = null
  private stderrTail = ""
  private watchdog: ReturnType<typeof setTimeout> | null = null
  readonly ready: Promise<void>
  private settleReady!: { resolve(): void; reject(cause: Error): void }
  /** Resolves with the exit code once the process is gone. */
  readonly exited: Promise<number>

  constructor(onMessage: (w: WorkerProcess<Chunk>, message: FromWorker) => void) {
    this.ready = new Promise<void>((resolve, reject) => {
      this.settleReady = { resolve, reject }
    })
    // Only the pool's start awaits this; later failures are reported through `exited`.
    this.ready.catch(() => undefined)
    this.proc = Bun.spawn(COMMAND, {
      cwd: import.meta.dir,
      env: childEnv(),
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
      serialization: "json",
      ipc: (message: FromWorker) => onMessage(this, message)
    })
    void this.readStderr()
    this.exited = this.proc.exited
  }

  get pid(): number {
    return this.proc.pid
  }

  /** Its last line of stderr, for a crash report. */
  get lastWords(): string {
    return this.stderrTail.trim().split("\n").at(-1)?.slice(0, 300) ?? ""
  }

  private async readStderr() {
    const decoder = new TextDecoder()
    for await (const bytes of this.proc.stderr) this.stderrTail = (this.stderrTail + decoder.decode(bytes, { stream: true })).slice(-2000)
  }

  markReady() {
    this.state = "idle"
    this.settleReady.resolve()
  }

  failedToStart(reason: string) {
    this.settleReady.reject(new Error(reason))
  }

  post(message: ToWorker) {
    try {
      this.proc.send(message)
    } catch (cause) {
      this.kill(`crash: cannot write to the worker: ${cause instanceof Error ? cause.message : String(cause)}`)
    }
  }

  /** Kills the process after `ms` unless re-armed or disarmed first. */
  arm(ms: number, reason: string) {
    this.disarm()
    this.watchdog = setTimeout(() => this.kill(reason), ms)
  }

  disarm() {
    if (this.watchdog !== null) clearTimeout(this.watchdog)
    this.watchdog = null
  }

  /** Resident memory in bytes, or null where /proc cannot say. */
  rss(): number | null {
    try {
      return Number(readFileSync(`/proc/${this.proc.pid}/statm`, "utf8").split(" ")[1]) * PAGE_BYTES
    } catch {
      return null
    }
  }

  /** It failed: the pool hears of it, with `reason`, when it has exited. */
  kill(reason: string) {
    if (this.state === "dead") return
    this.killReason = reason
    this.proc.kill("SIGKILL")
  }

  /** Retired: it did nothing wrong, or already reported what went wrong. */
  stop() {
    if (this.state === "dead") return
    this.disarm()
    this.state = "dead"
    this.proc.kill("SIGKILL")
  }
}
