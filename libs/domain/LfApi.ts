/**
 * The label-function API (DESIGN §5): `lf-api.js` is a plain script so the same text is
 * the sandbox's prelude and, here, a native module for tests and benchmarks. LF code is a
 * script defining `function labelFunction(t)` that returns a step index or -1.
 *
 * @example
 * const lf = nativeLabelFunction(`function labelFunction(t) { return validateStatus(t, "complete") }`)
 * lf(trajectory) // 7
 */
import source from "./lf-api.js" with { type: "text" }
import docs from "./LF-API.md" with { type: "text" }
import type { LfTrajectory } from "./LfTrajectory.ts"

/** The API's source, evaluated before any LF (the sandbox prelude). */
export const LF_API_SOURCE: string = source

/** The API guide with examples (LF-API.md): what a model is shown when it writes an LF. */
export const LF_API_DOCS: string = docs

/** Bump when a helper's meaning changes: LabelFunctionInferred records the version its code was written against. */
export const LF_API_VERSION = "1"

/** The global functions the API defines, in source order. */
export const LF_API_NAMES: ReadonlyArray<string> = [...source.matchAll(/^function ([A-Za-z]\w*)\(/gm)].map((m) => m[1]!)

let api: ReadonlyArray<unknown> | undefined
const apiFunctions = (): ReadonlyArray<unknown> =>
  (api ??= new Function(`${source}\nreturn [${LF_API_NAMES.join(", ")}]`)() as ReadonlyArray<unknown>)

/**
 * An LF compiled in this process, with the API in scope. Only for code CORE wrote itself
 * or in benchmarks: untrusted code (a model's) runs in the sandbox.
 */
export const nativeLabelFunction = (code: string): ((t: LfTrajectory) => unknown) =>
  new Function(...LF_API_NAMES, `${code}\nreturn labelFunction`)(...apiFunctions()) as (t: LfTrajectory) => unknown
