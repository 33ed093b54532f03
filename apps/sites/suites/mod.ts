/** Task suites: the format, the loader and the bundled suite files (README.md). Safe to import anywhere: no ground truth here. */
import { Effect } from "effect"
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { loadSuite, SuiteError } from "./Suite.ts"
import type { Suite } from "./Suite.ts"

export { SuiteError } from "./Suite.ts"
export type { Suite, SuiteTask } from "./Suite.ts"
export { CHECKERS, isCheckerName, SITE_PARAMETERS } from "./vocabulary.ts"
export type { CheckerName, CheckerSpec, ParameterCheck } from "./vocabulary.ts"

/** Where the bundled suite files live. */
export const SUITES_DIR = import.meta.dir

/** Every `*.json` suite in `dir`, by file name; the first bad file fails the whole load with its one-line error. */
export const loadSuites = (dir: string = SUITES_DIR): Effect.Effect<ReadonlyArray<Suite>, SuiteError> =>
  Effect.try({
    try: () =>
      readdirSync(dir)
        .filter((f) => f.endsWith(".json"))
        .sort(),
    catch: () => new SuiteError({ message: `${dir}: cannot list suite files` })
  }).pipe(Effect.flatMap((files) => Effect.forEach(files, (f) => loadSuite(join(dir, f)))))
