/**
 * Policies and label functions see only the instruction and observations: the
 * sites' ground truth — the state API and the checkers built on it — is for evaluation
 * alone. This test reads every source file and fails if code outside evaluation reaches
 * for it: the `@core/sites/eval` package, the `eval/` folder of the sites, or the state API
 * itself (its route or its token header).
 */
import { expect, test } from "bun:test"
import { Glob } from "bun"
import { join, relative } from "node:path"

const REPO = join(import.meta.dir, "..")

/**
 * Evaluation code, and the sites package that serves the state API. A folder named `eval`
 * elsewhere is not enough: evaluation lives in its own package, so a policy cannot pass for it.
 */
const allowed = (path: string): boolean =>
  path.startsWith("apps/sites/") || // the server, its checkers and their tests
  path.startsWith("libs/evaluation/") || // policy evaluation, label accuracy, run metrics against the checkers
  path === "tests/boundaries.test.ts" ||
  path === "tests/learner-boundary.test.ts" // names the state API to keep the learner from it

const forbidden: ReadonlyArray<[RegExp, string]> = [
  [/from\s+["']@core\/sites\/eval["']/, "imports @core/sites/eval"],
  [/from\s+["'][^"']*sites\/eval[^"']*["']/, "imports the sites' eval folder"],
  [/__core\/state/, "calls the state API"],
  [/x-core-state-token|STATE_TOKEN_HEADER/, "uses the state API token"]
]

const sources = (): Array<string> =>
  [...new Glob("{apps,libs,events,tests,migrations}/**/*.ts").scanSync({ cwd: REPO })]
    .filter((p) => !p.includes("node_modules/"))
    .map((p) => relative(REPO, join(REPO, p)))

test("only evaluation code reaches the sites' ground truth", async () => {
  const files = sources()
  expect(files.length).toBeGreaterThan(50)
  const violations: Array<string> = []
  for (const path of files) {
    if (allowed(path)) continue
    const text = await Bun.file(join(REPO, path)).text()
    for (const [pattern, what] of forbidden) if (pattern.test(text)) violations.push(`${path} ${what}`)
  }
  expect(violations).toEqual([])
})

test("the check itself can fail: a policy module importing a checker is caught", () => {
  const policy = `import { shopState } from "@core/sites/eval"\nexport const act = () => shopState`
  expect(allowed("libs/policy/Policy.ts")).toBe(false)
  expect(allowed("libs/policy/eval/Policy.ts")).toBe(false)
  expect(allowed("libs/evaluation/PolicyEval.ts")).toBe(true)
  expect(forbidden.some(([p]) => p.test(policy))).toBe(true)
})

/** A command module's relative imports: `./x.ts` names another command. */
const commandImports = (text: string): Array<string> => [...text.matchAll(/from\s+["']\.\/([^"']+)["']/g)].map((m) => m[1]!)

test("no command imports another: what two commands share lives beside them in apps/cli or in a lib", async () => {
  const commands = [...new Glob("apps/cli/commands/*.ts").scanSync({ cwd: REPO })].filter((p) => !p.endsWith("/mod.ts"))
  expect(commands.length).toBeGreaterThan(10)
  const violations: Array<string> = []
  for (const path of commands) {
    for (const imported of commandImports(await Bun.file(join(REPO, path)).text())) violations.push(`${path} imports ./${imported}`)
  }
  expect(violations).toEqual([])
  // The check itself can fail.
  expect(commandImports(`import { positiveInt } from "./run.ts"`)).toEqual(["run.ts"])
})

/** Every workspace package: a folder with a package.json under libs/, apps/ or events/. */
const workspacePackages = (): Array<{ dir: string; name: string; declared: ReadonlySet<string> }> =>
  [...new Glob("{libs,apps}/*/package.json").scanSync({ cwd: REPO }), "events/package.json"].map((file) => {
    const json = JSON.parse(require("node:fs").readFileSync(join(REPO, file), "utf8")) as {
      name: string
      dependencies?: Record<string, string>
    }
    return { dir: file.slice(0, -"/package.json".length), name: json.name, declared: new Set(Object.keys(json.dependencies ?? {})) }
  })

/** The workspace packages a source file imports (`@core/sites/suites` is `@core/sites`). */
const workspaceImports = (text: string): Array<string> =>
  [...text.matchAll(/(?:from|import)\s*\(?\s*["'](@core\/[a-z-]+)(?:\/[^"']*)?["']/g)].map((m) => m[1]!)

test("each package declares the workspace packages it imports, so its package.json tells its place in the layers", async () => {
  const packages = workspacePackages()
  expect(packages.length).toBeGreaterThan(10)
  const violations: Array<string> = []
  for (const pkg of packages) {
    for (const path of new Glob(`${pkg.dir}/**/*.ts`).scanSync({ cwd: REPO })) {
      if (path.includes("node_modules/")) continue
      for (const imported of new Set(workspaceImports(await Bun.file(join(REPO, path)).text()))) {
        if (imported !== pkg.name && !pkg.declared.has(imported))
          violations.push(`${path} imports ${imported}, which ${pkg.dir}/package.json does not declare`)
      }
    }
  }
  expect(violations).toEqual([])
  // The check itself can fail.
  expect(workspaceImports(`import { x } from "@core/sites/suites"\nconst m = await import("@core/events")`)).toEqual([
    "@core/sites",
    "@core/events"
  ])
})

test("each package imports every workspace package it declares: a stale declaration would draw a layer that is not there", async () => {
  const unused: Array<string> = []
  for (const pkg of workspacePackages()) {
    const imported = new Set<string>()
    for (const path of new Glob(`${pkg.dir}/**/*.ts`).scanSync({ cwd: REPO })) {
      if (path.includes("node_modules/")) continue
      for (const name of workspaceImports(await Bun.file(join(REPO, path)).text())) imported.add(name)
    }
    for (const name of pkg.declared)
      if (name.startsWith("@core/") && !imported.has(name))
        unused.push(`${pkg.dir}/package.json declares ${name}, which nothing in it imports`)
  }
  expect(unused).toEqual([])
})

test("each package's mod.ts names its public API: no `export *` of a whole module", async () => {
  const violations: Array<string> = []
  for (const path of new Glob("{libs,apps,events}/**/mod.ts").scanSync({ cwd: REPO })) {
    if (path.includes("node_modules/")) continue
    const text = await Bun.file(join(REPO, path)).text()
    // `export * as Name` is one name; `export * from` is everything a module happens to export.
    for (const m of text.matchAll(/^export \* from ["']([^"']+)["']/gm)) violations.push(`${path}: export * from ${m[1]}`)
  }
  expect(violations).toEqual([])
})

test("commands print through console.log: process.stdout.write to a pipe is cut short when the command exits", async () => {
  const files = [...new Glob("apps/cli/**/*.ts").scanSync({ cwd: REPO })].filter((p) => !p.includes("/test/"))
  expect(files.length).toBeGreaterThan(10)
  const violations: Array<string> = []
  for (const path of files) if (/process\.stdout\.write\(/.test(await Bun.file(join(REPO, path)).text())) violations.push(path)
  expect(violations).toEqual([])
})

/**
 * Every pack in the repo, as what would name it: the name its core-app.json gives the app,
 * and its folder's path (`packs/actual`: the folder alone may be an everyday word).
 */
const packNames = (): Array<string> =>
  [...new Glob("packs/*/core-app.json").scanSync({ cwd: REPO })].flatMap((file) => {
    const folder = file.split("/")[1]!
    const name = (JSON.parse(require("node:fs").readFileSync(join(REPO, file), "utf8")) as { name: string }).name
    return [name, `packs/${folder}`]
  })

/** A source text naming `name` as a word (case-insensitive): `mediawiki` but not `mediawikis-like` inside another word. */
const names = (text: string, name: string): boolean =>
  new RegExp(`(^|[^a-z0-9-])${name.replace(/[-/\\^$*+?.()|[\]{}]/g, "\\$&")}([^a-z0-9-]|$)`, "i").test(text)

test("no code in libs/ or apps/ names an app of packs/: what a pack needs is a general mechanism", async () => {
  const packs = packNames()
  expect(packs.length).toBeGreaterThan(0)
  const files = [...new Glob("{libs,apps}/**/*.{ts,js,json,html,css}").scanSync({ cwd: REPO })].filter((p) => !p.includes("node_modules/"))
  expect(files.length).toBeGreaterThan(100)
  const violations: Array<string> = []
  for (const path of files) {
    const text = await Bun.file(join(REPO, path)).text()
    for (const name of packs) if (names(text, name)) violations.push(`${path} names ${name}`)
  }
  expect(violations).toEqual([])
  // The check itself can fail, and reads a name as a word only.
  expect(names(`const base = "packs/tiddlywiki"`, "tiddlywiki")).toBe(true)
  expect(names("TiddlyWiki's story river", "tiddlywiki")).toBe(true)
  expect(names("tiddlywikis-like", "tiddlywiki")).toBe(false)
})
