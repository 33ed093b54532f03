/**
 * Draws the workspace packages and what each declares it imports (its package.json
 * `dependencies`, which tests/boundaries.test.ts holds true to the sources) as the mermaid
 * diagram in docs/architecture.md, between its marker comments; without `--write` it prints
 * the diagram. An edge implied by a longer path is left out, so the picture shows layers
 * rather than every import. tests/package-graph.test.ts fails when the doc's copy differs.
 *
 * @example
 * bun scripts/package-graph.ts --write
 */
import { Glob } from "bun"
import { readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"

const REPO = join(import.meta.dir, "..")
const DOC = join(REPO, "docs", "architecture.md")
export const GRAPH_START = "<!-- package graph: bun scripts/package-graph.ts --write -->"
export const GRAPH_END = "<!-- end of package graph -->"

/** Where each package sits in the picture, and its one-line caption. Unknown packages fail the drawing. */
const PLACES: Readonly<Record<string, readonly [group: string, caption: string]>> = {
  "apps/cli": ["entry", "the core command: flags and printing"],
  "libs/console": ["entry", "the web console"],
  "libs/run": ["run", "a live run composed:<br/>prepare, live layers, drive"],
  "libs/workers": ["run", "rollout workers on a work queue"],
  "libs/evaluation": ["run", "policy evaluation, label accuracy,<br/>reports (evaluation only)"],
  "libs/datasets": ["run", "dataset export, follow, check"],
  "libs/trainer": ["run", "core train: the learner trained<br/>on the dataset stream"],
  "libs/pipeline": ["method", "deciders, run config,<br/>verification, rollout"],
  "libs/engine": ["method", "decider kernel: driver, Emitter, startRun,<br/>recorded services, replay"],
  "libs/domain": ["method", "the method, pure: LF API, key steps, synthesis,<br/>strategy graph, expansion, extrapolation, rules"],
  "libs/policy": ["method", "one Policy: exploration, retrieval, model"],
  "libs/learner": ["method", "the learned policy: features, ranker,<br/>SGD on sft and dpo records"],
  "libs/models": ["method", "model client, prompts"],
  "libs/sandbox": ["method", "label functions in QuickJS"],
  "apps/sites": ["world", "bundled web apps, task suites,<br/>ground truth (evaluation only)"],
  "libs/apps": ["world", "app packs"],
  "libs/demos": ["world", "demo format, ingest, step files"],
  "libs/environment": ["world", "Environment, episode runner"],
  "libs/env-web": ["world", "Playwright + Chromium"],
  "libs/env-android": ["world", "WebDriver: mobile web, Appium"],
  "libs/projections": ["storage", "read models (+ migrations)"],
  "libs/eventstore": ["storage", "JetStream | embedded SQLite"],
  "libs/blobstore": ["storage", "Object Store | directory"],
  "libs/config": ["storage", "config, secrets, identity"],
  events: ["storage", "the event catalog"]
}
const GROUPS: ReadonlyArray<readonly [string, string]> = [
  ["entry", "commands and console"],
  ["run", "runs, workers, datasets, evaluation"],
  ["method", "the method and its kernel"],
  ["world", "the world an agent acts in"],
  ["storage", "log and storage"]
]

/** Package folder → the package folders it declares. */
export const declaredGraph = (): ReadonlyMap<string, ReadonlyArray<string>> => {
  const files = [...new Glob("{libs,apps}/*/package.json").scanSync({ cwd: REPO }), "events/package.json"].sort()
  const byName = new Map<string, string>()
  const deps = new Map<string, ReadonlyArray<string>>()
  const parsed = files.map((f) => ({ dir: dirname(f), json: JSON.parse(readFileSync(join(REPO, f), "utf8")) }))
  for (const { dir, json } of parsed) byName.set(json.name, dir)
  for (const { dir, json } of parsed) {
    deps.set(
      dir,
      Object.keys(json.dependencies ?? {})
        .map((n) => byName.get(n))
        .filter((d): d is string => d !== undefined)
        .sort()
    )
  }
  return deps
}

/** The graph without the edges a longer path already implies. */
export const reduced = (graph: ReadonlyMap<string, ReadonlyArray<string>>): ReadonlyMap<string, ReadonlyArray<string>> => {
  const reach = (from: string, skip: string): boolean => {
    const seen = new Set<string>()
    const todo = (graph.get(from) ?? []).filter((d) => d !== skip)
    while (todo.length > 0) {
      const next = todo.pop()!
      if (next === skip) return true
      if (seen.has(next)) continue
      seen.add(next)
      todo.push(...(graph.get(next) ?? []))
    }
    return false
  }
  return new Map([...graph].map(([from, to]) => [from, to.filter((d) => !reach(from, d))]))
}

const idOf = (dir: string): string => dir.replace(/[^a-z]/g, "_")

/** The diagram as mermaid, from the declared graph. */
export const packageGraph = (graph: ReadonlyMap<string, ReadonlyArray<string>> = declaredGraph()): string => {
  const missing = [...graph.keys()].filter((d) => PLACES[d] === undefined)
  if (missing.length > 0) throw new Error(`scripts/package-graph.ts has no place for ${missing.join(", ")}`)
  const lines = ["```mermaid", "flowchart TB"]
  for (const [group, title] of GROUPS) {
    lines.push(`  subgraph ${group}["${title}"]`)
    for (const dir of [...graph.keys()].filter((d) => PLACES[d]![0] === group)) {
      lines.push(`    ${idOf(dir)}["${dir}<br/>${PLACES[dir]![1]}"]`)
    }
    lines.push("  end")
  }
  for (const [from, to] of reduced(graph)) for (const d of to) lines.push(`  ${idOf(from)} --> ${idOf(d)}`)
  lines.push("```")
  return lines.join("\n")
}

/** The doc with its diagram replaced by the declared graph's (the markers must be there). */
export const withGraph = (doc: string): string => {
  const start = doc.indexOf(GRAPH_START)
  const end = doc.indexOf(GRAPH_END)
  if (start < 0 || end < start) throw new Error(`docs/architecture.md has no ${GRAPH_START} … ${GRAPH_END} section`)
  return `${doc.slice(0, start + GRAPH_START.length)}\n${packageGraph()}\n${doc.slice(end)}`
}

if (import.meta.main) {
  if (process.argv.includes("--write")) writeFileSync(DOC, withGraph(readFileSync(DOC, "utf8")))
  else console.log(packageGraph())
}
