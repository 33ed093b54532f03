/**
 * Behaviour versions are named rules, resolved once (libs/domain/rules): a decider, the
 * rollout, a policy or a domain function reads `rules.data.sftOrigin`, never `dataRules ===
 * "3"`. This test reads the sources of libs/, apps/cli and events/ and fails on a
 * comparison with a numeric string literal, a list of them asked `.includes`, or a version
 * literal looked up (`since("3")`, `GUIDES["1"]`) anywhere outside the registries, so a new
 * version adds its rules there and nowhere else. Tests and the sites (whose query
 * parameters compare "1") are not scanned.
 */
import { expect, test } from "bun:test"
import { Glob } from "bun"
import { join } from "node:path"

const REPO = join(import.meta.dir, "..")

/**
 * The registries, where version literals belong; and the bench, whose numeric strings are
 * no versions: it keys its rates by parallelism ("1" parallel, "4" parallel).
 */
const allowed = (path: string): boolean =>
  path.startsWith("libs/domain/rules/") || path === "apps/cli/bench/EnvBench.ts" || path === "apps/cli/commands/bench.ts"

const scanned = (path: string): boolean =>
  !path.includes("node_modules/") && !/(^|\/)test\//.test(path) && !/\.test\.ts$/.test(path) && !allowed(path)

const forbidden: ReadonlyArray<readonly [RegExp, string]> = [
  [/[=!]==\s*["']\d+["']/, "compares with a numeric string literal"],
  [/["']\d+["']\s*[=!]==/, "compares a numeric string literal"],
  [/\[\s*["']\d+["'](\s*,\s*["']\d+["'])*\s*\]\s*\.includes\(/, "asks a list of numeric string literals .includes"],
  [/\bsince\(\s*["']\d+["']\s*\)/, "looks a rule up by a version literal (since)"],
  [/[\w)\]]\s*\[\s*["']\d+["']\s*\]/, "looks something up by a version literal"],
  [/\[\s*["']\d+["']\s*,\s*["']\d+["']/, "lists version literals"]
]

/** Each violation in a source's text: the line and what it does. */
export const violationsIn = (path: string, text: string): Array<string> =>
  text
    .split("\n")
    .flatMap((line, i) => forbidden.flatMap(([pattern, what]) => (pattern.test(line) ? [`${path}:${i + 1} ${what}: ${line.trim()}`] : [])))

test("no version literal is compared or looked up outside the registries (libs/domain/rules)", async () => {
  const files = ["libs", "apps/cli", "events"].flatMap((dir) => [...new Glob(`${dir}/**/*.ts`).scanSync({ cwd: REPO })]).filter(scanned)
  expect(files.length).toBeGreaterThan(100)
  const violations: Array<string> = []
  for (const path of files) violations.push(...violationsIn(path, await Bun.file(join(REPO, path)).text()))
  expect(violations).toEqual([])
})

test("the check itself can fail: each way of comparing or looking up a version literal is caught", () => {
  const cases = [
    `if (s.config!.dataRules !== "1") {`,
    `const later = "3" === config.exploration`,
    `if (!["1", "2", "3"].includes(config.dataRules)) return`,
    `export const readsAnswers = since("3")`,
    `return LF_API_GUIDES["1"]!`,
    `const Exploration = Schema.Literals(["1", "2", "3"])`
  ]
  for (const line of cases) expect(violationsIn("libs/pipeline/deciders/Example.ts", line).length).toBeGreaterThan(0)
  expect(scanned("libs/pipeline/deciders/Example.ts")).toBe(true)
  expect(scanned("libs/domain/rules/DataRules.ts")).toBe(false)
  expect(violationsIn("libs/pipeline/deciders/Example.ts", `if (rules.data.sftOrigin) return origin`)).toEqual([])
})
