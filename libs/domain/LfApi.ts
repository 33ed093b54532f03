/**
 * The label-function API (LF-API.md): `lf-api.js` is a plain script so the same text is
 * the sandbox's prelude and, here, a native module for tests and benchmarks. LF code is a
 * script defining `function labelFunction(t)` that returns a step index or -1.
 *
 * @example
 * const lf = nativeLabelFunction(`function labelFunction(t) { return validateStatus(t, "complete") }`)
 * lf(trajectory) // 7
 */
import source from "./lf-api.js" with { type: "text" }
import docs from "./LF-API.md" with { type: "text" }
import docsV1 from "./LF-API.v1.md" with { type: "text" }
import type { LfTrajectory } from "./LfTrajectory.ts"
import { LF_GUIDE, type LfGuideVersion } from "./rules/LfGuide.ts"
import { versionOf } from "./rules/Versioned.ts"

/** The API's source, evaluated before any LF (the sandbox prelude). */
export const LF_API_SOURCE: string = source

/** The API guide with examples (LF-API.md): what a model is shown when it writes an LF. */
export const LF_API_DOCS: string = docs

/**
 * Every guide a run may have shown a model, by version (rules/LfGuide.ts). The guide is part
 * of a recorded prompt, so a run records the version it used (`infer.lfGuide`) and replaying
 * an older run rebuilds its prompts from the guide it saw.
 */
const LF_API_GUIDES: Readonly<Record<LfGuideVersion, string>> = { 1: docsV1, 2: docs }

// The guide new runs show is LF_GUIDE.current: bump it with a new entry in LF_API_GUIDES when LF-API.md changes.

/** The guide of a version; runs from before versions were recorded saw the first. */
export const lfApiGuide = (version: unknown): string => LF_API_GUIDES[versionOf(LF_GUIDE, version)]

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
