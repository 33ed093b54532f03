/**
 * Comparing a logged decision event with its re-derived twin (docs/architecture.md,
 * "Replay"): both are
 * reduced to `{id, type, version, stream, causationId, data}` — `recordedAt` and store
 * positions are left out, since the clock and the log's layout are not decisions — and
 * compared as canonical JSON; when they differ, a field-level diff says where.
 *
 * @example
 * diffValues({ data: { n: 1 } }, { data: { n: 2 } }) // [{ path: "data.n", logged: 1, rederived: 2 }]
 */
import { canonicalJson } from "@core/events"

/** The part of an event a replay compares. */
export interface Comparable {
  readonly id: string
  readonly type: string
  readonly version: number
  readonly stream: string
  readonly causationId: string | null
  readonly data: unknown
}

export const comparable = (e: Comparable): Comparable => ({
  id: e.id,
  type: e.type,
  version: e.version,
  stream: e.stream,
  causationId: e.causationId,
  data: e.data
})

/** True when the two events are the same decision. */
export const sameDecision = (a: Comparable, b: Comparable): boolean => canonicalJson(comparable(a)) === canonicalJson(comparable(b))

/** One differing field; a side's key is absent when the field does not exist there. */
export interface FieldDiff {
  readonly path: string
  readonly logged?: unknown
  readonly rederived?: unknown
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

const child = (path: string, key: string | number): string =>
  typeof key === "number"
    ? `${path}[${key}]`
    : /^[A-Za-z_$][\w$]*$/.test(key)
      ? path
        ? `${path}.${key}`
        : key
      : `${path}[${JSON.stringify(key)}]`

/**
 * The leaves where two JSON values differ, depth first in key order. Arrays are compared
 * index by index: a decision's lists are ordered, so an insertion is a change at every
 * later index, which is what it is.
 */
export const diffValues = (logged: unknown, rederived: unknown, path = ""): Array<FieldDiff> => {
  // Canonical spelling first: `undefined` members vanish exactly as they do in the log.
  const a = JSON.parse(canonicalJson(logged)) as unknown
  const b = JSON.parse(canonicalJson(rederived)) as unknown
  const out: Array<FieldDiff> = []
  const walk = (x: unknown, y: unknown, p: string, hasX: boolean, hasY: boolean): void => {
    if (hasX && hasY && canonicalJson(x) === canonicalJson(y)) return
    if (hasX && hasY && isObject(x) && isObject(y)) {
      for (const k of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
        walk(x[k], y[k], child(p, k), k in x, k in y)
      }
      return
    }
    if (hasX && hasY && Array.isArray(x) && Array.isArray(y)) {
      for (let i = 0; i < Math.max(x.length, y.length); i++) walk(x[i], y[i], child(p, i), i < x.length, i < y.length)
      return
    }
    out.push({ path: p || "$", ...(hasX ? { logged: x } : {}), ...(hasY ? { rederived: y } : {}) })
  }
  walk(a, b, path, true, true)
  return out
}

/** Human lines for a diff: `  data.n: 1 → 2`. */
export const formatDiff = (diff: ReadonlyArray<FieldDiff>): Array<string> =>
  diff.map((d) => {
    const show = (has: boolean, v: unknown) => (has ? JSON.stringify(v) : "(absent)")
    return `  ${d.path}: ${show("logged" in d, d.logged)} → ${show("rederived" in d, d.rederived)}`
  })
