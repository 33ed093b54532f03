/**
 * Messages between the pool (parent) and a worker process, over Bun's IPC channel as JSON.
 *
 * Throughput comes from batching: one `run` carries many evaluations, each a triple of
 * indices into the message's own code and trajectory tables, so a thousand evaluations of
 * one LF ship its source once. Trajectory JSON is sent only the first time a worker needs
 * it; a worker that has evicted it answers `need` and the chunk is sent again with it.
 */
import type { Verdict } from "./Verdict.ts"

export interface WorkerSettings {
  readonly prelude: string
  readonly budget: number
  readonly deadlineMs: number
  readonly memoryLimitBytes: number
  readonly processMemoryCapBytes: number
}

/** `prefix` -1: the whole trajectory. */
export type WireItem = readonly [code: number, trajectory: number, prefix: number]

export type ToWorker =
  | { readonly t: "init"; readonly settings: WorkerSettings }
  | {
      readonly t: "run"
      readonly id: number
      readonly codes: ReadonlyArray<string>
      readonly trajectories: ReadonlyArray<{ readonly key: string; readonly json?: string }>
      readonly items: ReadonlyArray<WireItem>
    }

/** ok → the step index; error → its reason; infra-error → `{ infra: reason }`. */
export type WireVerdict = number | string | { readonly infra: string }

export type FromWorker =
  /** The worker listens: only now is `init` sure to arrive. */
  | { readonly t: "hello" }
  | { readonly t: "ready" }
  | { readonly t: "init-failed"; readonly reason: string }
  | { readonly t: "need"; readonly id: number; readonly keys: ReadonlyArray<string> }
  | {
      readonly t: "results"
      readonly id: number
      /** Index in the chunk's items of `verdicts[0]`. */
      readonly from: number
      readonly verdicts: ReadonlyArray<WireVerdict>
      /**
       * The chunk is over: the items after the last verdict were not evaluated. With `retire`
       * the worker asks to be replaced (it hit an infra-error or its memory cap).
       */
      readonly end?: true
      readonly retire?: string
    }

export const toWire = (v: Verdict): WireVerdict => (v.kind === "ok" ? v.satisfiedAt : v.kind === "error" ? v.reason : { infra: v.reason })

export const fromWire = (w: WireVerdict): Verdict =>
  typeof w === "number"
    ? { kind: "ok", satisfiedAt: w }
    : typeof w === "string"
      ? { kind: "error", reason: w }
      : { kind: "infra-error", reason: w.infra }
