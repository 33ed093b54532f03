/**
 * The repo's source files and the files each one imports, resolved as Bun resolves them:
 * relative paths, and `@core/<pkg>[/sub]` through the package's `exports`. Third-party
 * modules are kept as their bare names, so a test can ask whether a file reaches one.
 *
 * @example
 * const graph = importGraph()
 * reaches(graph, "libs/console/mod.ts", (m) => m === "playwright-core") // false
 */
import { Glob } from "bun"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, normalize, relative } from "node:path"

export const REPO = join(import.meta.dir, "..", "..")

/** Every specifier a file imports or re-exports, type-only ones included, and dynamic imports. */
export const specifiersOf = (text: string): Array<string> => [
  ...[...text.matchAll(/^\s*(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"']+)["']/gm)].map((m) => m[1]!),
  ...[...text.matchAll(/^\s*import\s*["']([^"']+)["']/gm)].map((m) => m[1]!),
  ...[...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]!)
]

type Exports = ReadonlyMap<string, string>
const workspaceExports = (): Exports => {
  const out = new Map<string, string>()
  for (const file of [...new Glob("{libs,apps}/*/package.json").scanSync({ cwd: REPO }), "events/package.json"]) {
    const json = JSON.parse(readFileSync(join(REPO, file), "utf8")) as { name: string; exports?: Record<string, string> }
    const dir = dirname(file)
    for (const [sub, target] of Object.entries(json.exports ?? {})) {
      out.set(sub === "." ? json.name : `${json.name}/${sub.slice(2)}`, normalize(join(dir, target)))
    }
  }
  return out
}

const resolve = (from: string, spec: string, exports: Exports): string => {
  if (spec.startsWith(".")) {
    const base = normalize(join(dirname(from), spec))
    for (const candidate of [base, `${base}.ts`, join(base, "mod.ts"), join(base, "index.ts")]) {
      if (candidate.endsWith(".ts") && existsSync(join(REPO, candidate))) return candidate
    }
    return base
  }
  return exports.get(spec) ?? spec
}

/** Source file → what it imports (repo paths for the repo's files, bare names otherwise). */
export const importGraph = (): ReadonlyMap<string, ReadonlyArray<string>> => {
  const exports = workspaceExports()
  const graph = new Map<string, Array<string>>()
  const files = [...new Glob("{apps,libs,events,packs}/**/*.ts").scanSync({ cwd: REPO })]
    .map((p) => relative(REPO, join(REPO, p)))
    .filter((p) => !p.includes("node_modules/") && !p.endsWith(".d.ts"))
  for (const file of files) {
    const text = readFileSync(join(REPO, file), "utf8")
    graph.set(
      file,
      specifiersOf(text).map((s) => resolve(file, s, exports))
    )
  }
  return graph
}

/** The cycles among the graph's files (each as one path through it), by Tarjan's strongly connected components. */
export const cyclesOf = (graph: ReadonlyMap<string, ReadonlyArray<string>>): Array<Array<string>> => {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const out: Array<Array<string>> = []
  const visit = (v: string): void => {
    index.set(v, counter)
    low.set(v, counter++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const component: Array<string> = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort())
    }
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return out
}

/** Every module `from` reaches through the graph, itself included. */
export const reachable = (graph: ReadonlyMap<string, ReadonlyArray<string>>, from: string): ReadonlySet<string> => {
  const seen = new Set<string>([from])
  const todo = [from]
  while (todo.length > 0) {
    for (const next of graph.get(todo.pop()!) ?? []) {
      if (seen.has(next)) continue
      seen.add(next)
      todo.push(next)
    }
  }
  return seen
}
