/**
 * A sandbox worker: a child process (`process.execPath Worker.ts`) that evaluates label
 * functions in QuickJS for the pool in `Pool.ts`, one chunk of evaluations at a time.
 *
 * It reports results in slices at least every `FLUSH_MS` of work, yielding to the event
 * loop after each so the message leaves at once: the parent's watchdog reads a silent
 * worker as a hung one. It stops a chunk at the first infra-error or when over its RSS
 * cap, and asks to be replaced (`retire`); it never decides on its own to exit, except when
 * its parent goes away.
 */
import { newQuickJSWASMModule } from "quickjs-emscripten"
import { Decider } from "./Decider.ts"
import type { FromWorker, ToWorker, WireVerdict, WorkerSettings } from "./Protocol.ts"
import { toWire } from "./Protocol.ts"

const FLUSH_MS = 20
const RSS_CHECK_MS = 10
/** Trajectory JSON kept for later chunks; the parent re-sends what was dropped. */
const STORE_BYTES = 64 * 1024 * 1024

const send = (message: FromWorker) => {
  process.send!(message)
}

const oneLine = (cause: unknown): string =>
  (cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)).replace(/\s*\n\s*/g, " ").slice(0, 500)

const modulePromise = newQuickJSWASMModule()
let decider: Decider | null = null
let settings: WorkerSettings | null = null
/** After a WebAssembly abort the module's memory cannot be trusted: answer nothing more. */
let broken = false

const store = new Map<string, string>()
let storeBytes = 0

const remember = (key: string, json: string) => {
  if (store.has(key)) return
  store.set(key, json)
  storeBytes += json.length
  for (const [old, text] of store) {
    if (storeBytes <= STORE_BYTES || store.size <= 1) break
    store.delete(old)
    storeBytes -= text.length
  }
}

const recall = (key: string): string | undefined => {
  const json = store.get(key)
  if (json !== undefined) {
    store.delete(key)
    store.set(key, json)
  }
  return json
}

const init = async (s: WorkerSettings) => {
  settings = s
  try {
    decider = new Decider(await modulePromise, s)
    decider.warmUp()
    send({ t: "ready" })
  } catch (cause) {
    send({ t: "init-failed", reason: oneLine(cause) })
  }
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

const run = async (m: Extract<ToWorker, { t: "run" }>) => {
  if (decider === null || settings === null) throw new Error("run before init")
  // Held for the whole chunk, whatever the store evicts meanwhile.
  const jsons = m.trajectories.map((t) => t.json ?? recall(t.key))
  const missing = m.trajectories.filter((_, i) => jsons[i] === undefined).map((t) => t.key)
  if (missing.length > 0) {
    send({ t: "need", id: m.id, keys: missing })
    return
  }
  for (const t of m.trajectories) if (t.json !== undefined) remember(t.key, t.json)
  const cap = settings.processMemoryCapBytes
  let from = 0
  let verdicts: Array<WireVerdict> = []
  let flushedAt = performance.now()
  let unsent = false
  let rssCheckedAt = 0
  const flush = () => {
    send({ t: "results", id: m.id, from, verdicts })
    from += verdicts.length
    verdicts = []
    flushedAt = performance.now()
    unsent = true
  }
  for (const [code, trajectory, prefix] of m.items) {
    if (unsent) {
      unsent = false
      await yieldToLoop()
    }
    let wire: WireVerdict
    try {
      // A re-decision may take as long again as the first call: report before it.
      const verdict = decider.decide(m.codes[code]!, m.trajectories[trajectory]!.key, jsons[trajectory]!, prefix, flush)
      wire = toWire(verdict)
    } catch (cause) {
      broken = true
      send({ t: "results", id: m.id, from, verdicts: [...verdicts, { infra: `crash: ${oneLine(cause)}` }], end: true, retire: "crashed" })
      return
    }
    verdicts.push(wire)
    if (typeof wire === "object") {
      send({ t: "results", id: m.id, from, verdicts, end: true, retire: wire.infra })
      return
    }
    const now = performance.now()
    // Reading the RSS costs as much as a small evaluation: not after every one.
    if (now - rssCheckedAt >= RSS_CHECK_MS) {
      rssCheckedAt = now
      const rss = process.memoryUsage.rss()
      if (rss > cap) {
        send({ t: "results", id: m.id, from, verdicts, end: true, retire: `memory cap: worker RSS ${Math.round(rss / 1048576)} MiB` })
        return
      }
    }
    if (now - flushedAt >= FLUSH_MS) flush()
  }
  send({ t: "results", id: m.id, from, verdicts, end: true })
}

const inbox: Array<ToWorker> = []
let draining = false

const drain = async () => {
  if (draining) return
  draining = true
  while (inbox.length > 0 && !broken) {
    const m = inbox.shift()!
    if (m.t === "init") await init(m.settings)
    else await run(m)
  }
  draining = false
}

process.on("message", (m: ToWorker) => {
  inbox.push(m)
  void drain()
})
// The parent is gone (killed, crashed): nothing is left to answer to.
process.on("disconnect", () => process.exit(0))
send({ t: "hello" })
