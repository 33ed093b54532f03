/**
 * A strategy graph as text, Graphviz dot or mermaid (`core graph show`). Paths are listed
 * with the label-function sequence they stand for, so two paths that verify identically
 * show as one meaning.
 */
import type { SemanticKey, StrategyGraph } from "./StrategyGraph.ts"
import { distinctPaths, pathSignature } from "./StrategyGraph.ts"

export type GraphFormat = "text" | "dot" | "mermaid"

const keyText = (k: SemanticKey): string =>
  [
    k.actionKind,
    k.role ?? "",
    k.name === null ? "" : JSON.stringify(k.name),
    k.value === null ? "" : `= ${k.value}`,
    k.urlPattern === null ? "" : `@ ${k.urlPattern}`
  ]
    .filter((x) => x !== "")
    .join(" ")

const descriptionOf = (g: StrategyGraph, id: string): string => g.nodes.find((n) => n.nodeId === id)?.description ?? id

/** Every edge once, in first-seen order: start → each path's nodes → end. */
const edgesOf = (g: StrategyGraph, start: string, end: string): ReadonlyArray<readonly [string, string]> => {
  const seen = new Map<string, readonly [string, string]>()
  for (const p of g.paths) {
    const seq = [start, ...p.nodeIds, end]
    for (let i = 1; i < seq.length; i++) {
      const e = [seq[i - 1]!, seq[i]!] as const
      seen.set(JSON.stringify(e), e)
    }
  }
  return [...seen.values()]
}

/** Each path after the first of its meaning, by the path id it repeats. */
const repeats = (g: StrategyGraph): ReadonlyMap<string, string> => {
  const first = new Map<string, string>()
  const out = new Map<string, string>()
  for (const p of g.paths) {
    const signature = pathSignature(g, p.nodeIds)
    const seen = first.get(signature)
    if (seen === undefined) first.set(signature, p.pathId)
    else out.set(p.pathId, seen)
  }
  return out
}

const renderText = (g: StrategyGraph): string => {
  const same = repeats(g)
  return (
    [
      `strategy graph ${g.taskId}: ${g.nodes.length} node(s), ${g.paths.length} path(s), ${distinctPaths(g)} distinct by label functions`,
      "nodes:",
      ...g.nodes.map(
        (n) => `  ${n.nodeId} [${n.how}] ${n.description}\n    key: ${keyText(n.semanticKey)}\n    lf: ${n.lfId.slice(0, 12)}`
      ),
      "paths:",
      ...g.paths.map(
        (p) =>
          `  ${p.pathId}: ${["start", ...p.nodeIds.map((id) => `${id} ${JSON.stringify(descriptionOf(g, id))}`), "end"].join(" → ")}` +
          (same.has(p.pathId) ? `\n    same label functions as ${same.get(p.pathId)}` : "")
      )
    ].join("\n") + "\n"
  )
}

const dotString = (s: string): string =>
  `"${s
    .replace(/\\/g, "\\\\")
    .replace(/"/g, '\\"')
    .replace(/\r?\n|\r/g, "\\n")}"`

const renderDot = (g: StrategyGraph): string =>
  [
    `digraph ${dotString(`strategy graph ${g.taskId}`)} {`,
    "  rankdir=LR;",
    `  "@start" [shape=circle, label="start"];`,
    `  "@end" [shape=doublecircle, label="end"];`,
    ...g.nodes.map((n) => `  ${dotString(n.nodeId)} [shape=box, label=${dotString(`${n.description}\n${n.how} · ${n.nodeId}`)}];`),
    ...edgesOf(g, "@start", "@end").map(([a, b]) => `  ${dotString(a)} -> ${dotString(b)};`),
    "}"
  ].join("\n") + "\n"

/** `#` first (so the entities added next survive), then quotes; line breaks become spaces. */
const mermaidLabel = (s: string): string => `"${s.replace(/#/g, "#35;").replace(/"/g, "#quot;").replace(/\s+/g, " ").trim()}"`

/** `end` is a reserved word in mermaid flowcharts, so the virtual end's id is `finish`. */
const renderMermaid = (g: StrategyGraph): string =>
  [
    "flowchart LR",
    "  start((start))",
    "  finish((end))",
    ...g.nodes.map((n) => `  ${n.nodeId}[${mermaidLabel(n.description)}]`),
    ...edgesOf(g, "start", "finish").map(([a, b]) => `  ${a} --> ${b}`)
  ].join("\n") + "\n"

export const renderGraph = (g: StrategyGraph, format: GraphFormat): string => {
  switch (format) {
    case "text":
      return renderText(g)
    case "dot":
      return renderDot(g)
    case "mermaid":
      return renderMermaid(g)
  }
}
