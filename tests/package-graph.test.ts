/**
 * docs/architecture.md's picture of the packages is their package.json files' (which the
 * boundaries test holds true to the sources): a package added, or a dependency added or
 * dropped, and not redrawn fails here, with the command that redraws it.
 */
import { expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { packageGraph, reduced, withGraph } from "../scripts/package-graph.ts"

const DOC = join(import.meta.dir, "..", "docs", "architecture.md")

test("docs/architecture.md's package diagram is the declared one", () => {
  const doc = readFileSync(DOC, "utf8")
  if (withGraph(doc) !== doc) {
    throw new Error(
      "docs/architecture.md's package diagram differs from the package.json files: run `bun scripts/package-graph.ts --write`"
    )
  }
})

test("the check itself can fail: an edge a longer path implies is left out, a new dependency is drawn, an unplaced package is refused", () => {
  const graph = new Map([
    ["libs/run", ["libs/pipeline", "libs/engine"]],
    ["libs/pipeline", ["libs/engine"]],
    ["libs/engine", []]
  ])
  expect(reduced(graph).get("libs/run")).toEqual(["libs/pipeline"])
  expect(packageGraph(graph)).toContain("libs_run --> libs_pipeline")
  expect(packageGraph(graph)).not.toContain("libs_run --> libs_engine")
  expect(() => packageGraph(new Map([["libs/nowhere", []]]))).toThrow("no place for libs/nowhere")
})
