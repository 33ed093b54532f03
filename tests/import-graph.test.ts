/**
 * The source files import each other without a cycle: a cycle means two modules that can
 * be neither read nor moved apart, and the package layering the boundaries test checks
 * says nothing about files inside one package.
 */
import { expect, test } from "bun:test"
import { declaredGraph } from "../scripts/package-graph.ts"
import { cyclesOf, importGraph, reachable, specifiersOf } from "./support/importGraph.ts"

test("no import cycle between source files, type-only imports included", () => {
  const graph = importGraph()
  expect(graph.size).toBeGreaterThan(300)
  expect(cyclesOf(graph)).toEqual([])
})

test("the web console reaches no browser driver: it reads the log, and what plays episodes lives in @core/run", () => {
  const graph = importGraph()
  const from = reachable(graph, "libs/console/mod.ts")
  expect(from.size).toBeGreaterThan(20)
  expect([...from].filter((m) => m === "playwright-core" || m === "webdriverio" || m.startsWith("playwright-core/"))).toEqual([])
})

test("the check itself can fail: a two-file cycle and a self-import are found, an acyclic chain is not", () => {
  const graph = new Map([
    ["a.ts", ["b.ts", "effect"]],
    ["b.ts", ["a.ts"]],
    ["c.ts", ["c.ts"]],
    ["d.ts", ["e.ts"]],
    ["e.ts", []]
  ])
  expect(cyclesOf(graph)).toEqual([["a.ts", "b.ts"], ["c.ts"]])
  expect(
    specifiersOf(`import type { X } from "./x.ts"\nexport { y } from "@core/domain"\nconst z = await import("./z.ts")\nimport "./side.ts"`)
  ).toEqual(["./x.ts", "@core/domain", "./side.ts", "./z.ts"])
})

test("no cycle between workspace packages as their package.json files declare them", () => {
  const graph = declaredGraph()
  expect(graph.size).toBeGreaterThan(15)
  expect(cyclesOf(graph)).toEqual([])
})
