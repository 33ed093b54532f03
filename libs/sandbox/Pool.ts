/**
 * The parent side of the sandbox: a pool of worker processes fed from one queue of
 * evaluations, in chunks, with everything that makes a worker's failure cost at most the
 * verdict it was computing.
 *
 * - A watchdog kills a worker that reports nothing for `deadlineMs + WATCHDOG_GRACE_MS`
 *   (workers report at least every 20 ms of work), and a poller kills one whose RSS passes
 *   the cap: both are for work QuickJS cannot interrupt, since the worker stops evaluations
 *   that tick on its own.
 * - An evaluation that ended in an infra-error is retried `infraRetries` times, each on
 *   another process (a worker retires after any infra-error, so with one worker that is a
 *   fresh process), in a chunk of its own.
 * - When a worker dies mid-chunk, the evaluation to blame is known only if one was left
 *   unreported. Otherwise all the unreported ones are re-run one per chunk, so the next
 *   death names its culprit and the others are not charged for it.
 */
import type { LfTrajectory } from "@core/domain"
import type { FromWorker, WireItem, WorkerSettings } from "./Protocol.ts"
import { fromWire } from "./Protocol.ts"
import { infraError } from "./Verdict.ts"
import type { EvalRequest, Verdict } from "./Verdict.ts"
import { WorkerProcess } from "./WorkerProcess.ts"

export interface PoolOptions extends WorkerSettings {
  readonly workers: number
  readonly maxEvaluationsPerProcess: number
  readonly infraRetries: number
}

const CHUNK_ITEMS = 2000
const WATCHDOG_GRACE_MS = 1000
const START_TIMEOUT_MS = 30_000
const RSS_POLL_MS = 100
const SPAWN_FAILURES_BEFORE_GIVING_UP = 3

interface Batch {
  readonly results: Array<Verdict | undefined>
  left: number
  cancelled: boolean
  readonly resolve: (verdicts: ReadonlyArray<Verdict>) => void
}

interface Item {
  readonly code: string
  readonly key: string
  readonly value: LfTrajectory
  readonly prefix: number
  readonly batch: Batch
  readonly index: number
  /** Infra-errors so far. */
  attempts: number
  /** Sent in a chunk of its own. */
  alone: boolean
}

interface Chunk {
  readonly id: number
  readonly items: ReadonlyArray<Item>
  readonly codes: ReadonlyArray<string>
  readonly trajectories: ReadonlyArray<{ readonly key: string; readonly value: LfTrajectory }>
  readonly wire: ReadonlyArray<WireItem>
  reported: number
}

type Worker = WorkerProcess<Chunk>

/** `prefixOf` semantics: `steps.slice(0, max(0, k))`; -1 stands for "every step". */
const normalizePrefix = (prefix: number | undefined): number => {
  if (prefix === undefined || prefix === Infinity) return -1
  return Number.isFinite(prefix) ? Math.max(0, Math.trunc(prefix)) : 0
}

export class Pool {
  private readonly workers = new Set<Worker>()
  private queue: Array<Item> = []
  private readonly json = new Map<string, string>()
  private nextChunk = 1
  private spawnFailures = 0
  private lastSpawnFailure = ""
  private closing = false
  private readonly poller: ReturnType<typeof setInterval>

  constructor(private readonly options: PoolOptions) {
    this.poller = setInterval(() => this.pollRss(), RSS_POLL_MS)
    this.poller.unref()
  }

  /** Starts every worker; rejects with the first one's reason if any cannot load the prelude. */
  async start(): Promise<void> {
    const started = Array.from({ length: this.options.workers }, () => this.spawn())
    await Promise.all(started.map((w) => w.ready))
  }

  run(requests: ReadonlyArray<EvalRequest>, signal?: AbortSignal): Promise<ReadonlyArray<Verdict>> {
    if (requests.length === 0) return Promise.resolve([])
    const { promise, resolve } = Promise.withResolvers<ReadonlyArray<Verdict>>()
    const batch: Batch = { results: new Array(requests.length), left: requests.length, cancelled: false, resolve }
    if (this.closing) {
      resolve(requests.map(() => infraError("sandbox: the sandbox is closed")))
      return promise
    }
    const unsendable = new Map<string, string | null>()
    requests.forEach((r, index) => {
      const key = r.trajectory.key
      if (!unsendable.has(key)) unsendable.set(key, this.checkSendable(key, r.trajectory.value))
      const problem = unsendable.get(key)!
      if (problem !== null) {
        batch.results[index] = infraError(`sandbox: trajectory ${key} cannot be sent to a worker: ${problem}`)
        if (--batch.left === 0) resolve(batch.results as ReadonlyArray<Verdict>)
        return
      }
      this.queue.push({
        code: r.code,
        key: r.trajectory.key,
        value: r.trajectory.value,
        prefix: normalizePrefix(r.prefix),
        batch,
        index,
        attempts: 0,
        alone: false
      })
    })
    signal?.addEventListener(
      "abort",
      () => {
        batch.cancelled = true
        this.queue = this.queue.filter((i) => i.batch !== batch)
        // A worker busy only for abandoned batches is replaced rather than left to finish.
        for (const w of this.workers) if (w.chunk !== null && w.chunk.items.every((i) => i.batch.cancelled)) w.stop()
      },
      { once: true }
    )
    this.pump()
    return promise
  }

  async close(): Promise<void> {
    this.closing = true
    clearInterval(this.poller)
    const queued = this.queue
    this.queue = []
    for (const item of queued) this.finish(item, infraError("sandbox: the sandbox was closed"))
    const exits: Array<Promise<unknown>> = []
    for (const w of this.workers) {
      const chunk = w.chunk
      w.stop()
      if (chunk) for (const item of chunk.items.slice(chunk.reported)) this.finish(item, infraError("sandbox: the sandbox was closed"))
      exits.push(w.exited)
    }
    await Promise.all(exits)
  }

  private spawn(): Worker {
    const w: Worker = new WorkerProcess((worker, message) => this.onMessage(worker, message))
    this.workers.add(w)
    w.arm(START_TIMEOUT_MS, `crash: the worker did not start within ${START_TIMEOUT_MS} ms`)
    void w.exited.then((code) => this.onExit(w, code))
    return w
  }

  private onMessage(w: Worker, m: FromWorker) {
    if (w.state === "dead") return
    switch (m.t) {
      case "hello":
        return w.post({ t: "init", settings: this.settingsOf() })
      case "ready":
        w.disarm()
        w.markReady()
        this.spawnFailures = 0
        return this.pump()
      case "init-failed":
        return w.kill(m.reason)
      case "need": {
        const chunk = w.chunk
        if (chunk === null || chunk.id !== m.id) return
        this.watch(w)
        return this.send(w, chunk, new Set(m.keys))
      }
      case "results":
        return this.onResults(w, m)
    }
  }

  private settingsOf(): WorkerSettings {
    const o = this.options
    return {
      prelude: o.prelude,
      budget: o.budget,
      deadlineMs: o.deadlineMs,
      memoryLimitBytes: o.memoryLimitBytes,
      processMemoryCapBytes: o.processMemoryCapBytes
    }
  }

  private onResults(w: Worker, m: Extract<FromWorker, { t: "results" }>) {
    const chunk = w.chunk
    if (chunk === null || chunk.id !== m.id) return
    this.watch(w)
    m.verdicts.forEach((v, i) => this.settle(chunk.items[m.from + i]!, fromWire(v)))
    chunk.reported = m.from + m.verdicts.length
    w.evaluations += m.verdicts.length
    if (m.end !== true) return
    w.disarm()
    w.chunk = null
    this.requeue(chunk.items.slice(chunk.reported))
    if (m.retire !== undefined || w.evaluations >= this.options.maxEvaluationsPerProcess) w.stop()
    else w.state = "idle"
    this.pump()
  }

  /** A worker died or was killed. */
  private onExit(w: Worker, code: number) {
    w.disarm()
    this.workers.delete(w)
    const wasStarting = w.state === "starting"
    const stoppedByUs = w.state === "dead" && w.killReason === null
    w.state = "dead"
    if (stoppedByUs) return this.replenish()
    const tail = w.lastWords
    const reason = w.killReason ?? `crash: the worker exited with code ${code}${tail ? ` (${tail})` : ""}`
    if (wasStarting) {
      w.failedToStart(reason)
      this.spawnFailures++
      this.lastSpawnFailure = reason
    }
    const chunk = w.chunk
    w.chunk = null
    if (chunk !== null) {
      const unreported = chunk.items.slice(chunk.reported)
      if (unreported.length === 1) this.settle(unreported[0]!, infraError(reason))
      else {
        for (const item of unreported) item.alone = true
        this.requeue(unreported)
      }
    }
    this.replenish()
  }

  private replenish() {
    if (this.closing) return
    if (this.spawnFailures >= SPAWN_FAILURES_BEFORE_GIVING_UP) {
      // Starting keeps failing: fail what waits rather than spin, and try again on the next run.
      const queued = this.queue
      this.queue = []
      this.spawnFailures = 0
      for (const item of queued) this.finish(item, infraError(`sandbox: cannot start a worker: ${this.lastSpawnFailure}`))
      return
    }
    while (this.live() < this.options.workers) this.spawn()
    this.pump()
  }

  private live(): number {
    let n = 0
    for (const w of this.workers) if (w.state !== "dead") n++
    return n
  }

  private settle(item: Item, verdict: Verdict) {
    if (verdict.kind === "infra-error" && item.attempts < this.options.infraRetries) {
      item.attempts++
      item.alone = true
      this.requeue([item])
      return
    }
    this.finish(item, verdict)
  }

  private finish(item: Item, verdict: Verdict) {
    const batch = item.batch
    if (batch.cancelled || batch.results[item.index] !== undefined) return
    batch.results[item.index] = verdict
    if (--batch.left === 0) batch.resolve(batch.results as ReadonlyArray<Verdict>)
  }

  private requeue(items: ReadonlyArray<Item>) {
    const live = items.filter((i) => !i.batch.cancelled)
    if (this.closing) for (const item of live) this.finish(item, infraError("sandbox: the sandbox was closed"))
    else this.queue.unshift(...live)
  }

  private pump() {
    if (this.closing) return
    if (this.queue.length > 0 && this.live() < this.options.workers) this.replenish()
    const idle = [...this.workers].filter((w) => w.state === "idle")
    for (const [n, w] of idle.entries()) {
      if (this.queue.length === 0) return
      const room = this.options.maxEvaluationsPerProcess - w.evaluations
      const share = Math.ceil(this.queue.length / (idle.length - n))
      const size = Math.max(1, Math.min(CHUNK_ITEMS, share, room))
      const items: Array<Item> = []
      if (this.queue[0]!.alone) items.push(this.queue.shift()!)
      else while (items.length < size && this.queue.length > 0 && !this.queue[0]!.alone) items.push(this.queue.shift()!)
      this.dispatch(w, items)
    }
  }

  private dispatch(w: Worker, items: ReadonlyArray<Item>) {
    const codes = new Map<string, number>()
    const keys = new Map<string, number>()
    const trajectories: Array<{ key: string; value: LfTrajectory }> = []
    const wire: Array<WireItem> = items.map((item) => {
      let c = codes.get(item.code)
      if (c === undefined) codes.set(item.code, (c = codes.size))
      let t = keys.get(item.key)
      if (t === undefined) {
        keys.set(item.key, (t = keys.size))
        trajectories.push({ key: item.key, value: item.value })
      }
      return [c, t, item.prefix] as const
    })
    const chunk: Chunk = { id: this.nextChunk++, items, codes: [...codes.keys()], trajectories, wire, reported: 0 }
    w.state = "busy"
    w.chunk = chunk
    this.watch(w)
    this.send(w, chunk, new Set())
  }

  /** Sends `chunk`, with the JSON of each trajectory the worker was never sent or asked for again. */
  private send(w: Worker, chunk: Chunk, needed: ReadonlySet<string>) {
    // A bounded memory of what was sent: when it forgets, the worker asks.
    if (w.sent.size > 4096) w.sent.clear()
    const trajectories = chunk.trajectories.map(({ key, value }) => {
      if (w.sent.has(key) && !needed.has(key)) return { key }
      w.sent.add(key)
      return { key, json: this.jsonOf(key, value) }
    })
    w.post({ t: "run", id: chunk.id, codes: chunk.codes, trajectories, items: chunk.wire })
  }

  /** A trajectory that is not plain JSON (a cycle, a BigInt) is the caller's bug: it fails alone, not the chunk. */
  private checkSendable(key: string, value: LfTrajectory): string | null {
    try {
      this.jsonOf(key, value)
      return null
    } catch (cause) {
      return cause instanceof Error ? cause.message : String(cause)
    }
  }

  private jsonOf(key: string, value: LfTrajectory): string {
    let json = this.json.get(key)
    if (json === undefined) {
      json = JSON.stringify(value)
      this.json.set(key, json)
      if (this.json.size > 32) this.json.delete(this.json.keys().next().value!)
    }
    return json
  }

  /** A worker must report within the deadline and its grace, or be killed. */
  private watch(w: Worker) {
    const ms = this.options.deadlineMs + WATCHDOG_GRACE_MS
    w.arm(ms, `deadline: the worker reported nothing for ${ms} ms and was killed`)
  }

  private pollRss() {
    const cap = this.options.processMemoryCapBytes
    for (const w of this.workers) {
      if (w.state !== "busy") continue
      // Null without /proc (not Linux) or once gone: the worker's own check remains.
      const rss = w.rss()
      if (rss !== null && rss > cap)
        w.kill(`memory cap: worker RSS ${Math.round(rss / 1048576)} MiB over the ${Math.round(cap / 1048576)} MiB cap; killed`)
    }
  }
}
