/**
 * A strategy graph drawn as inline SVG, laid out left to right by dagre. Every label goes
 * through the escaping `html` template: node descriptions come from demos and models. The
 * drawing uses SVG attributes only (the page's CSP allows no style attribute); each real node
 * is a `<g data-node-id>` linking to its details on the page (`#node-<id>`).
 *
 * @example
 * graphSvg({ nodes: [{ id: "n-1", label: "Click 'Cycling'" }], edges: [{ from: START, to: "n-1" }, { from: "n-1", to: END }] })
 */
import { graphlib, layout } from "@dagrejs/dagre"
import type { Html } from "./Html.ts"
import { html } from "./Html.ts"

/** The virtual start and end every path runs between (as the read model's graph_edges name them). */
export const START = "@start"
export const END = "@end"

export interface SvgNode {
  readonly id: string
  readonly label: string
  /** A second, muted line: the action kind, how the node was found. */
  readonly detail?: string
  /** Drawn highlighted: e.g. the nodes of the path a trajectory matched. */
  readonly highlight?: boolean
}

export interface SvgEdge {
  readonly from: string
  readonly to: string
}

const CHAR_W = 7
const LINE_H = 16
const WRAP = 30
const MAX_LINES = 3

/** Words into lines of at most WRAP characters, at most MAX_LINES of them (the last one cut with an ellipsis). */
export const wrap = (text: string): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    const piece = word.length > WRAP ? `${word.slice(0, WRAP - 1)}…` : word
    if (line === "") line = piece
    else if (line.length + 1 + piece.length <= WRAP) line += ` ${piece}`
    else {
      lines.push(line)
      line = piece
    }
  }
  if (line !== "") lines.push(line)
  if (lines.length <= MAX_LINES) return lines.length === 0 ? [""] : lines
  const kept = lines.slice(0, MAX_LINES)
  kept[MAX_LINES - 1] = `${kept[MAX_LINES - 1]!.slice(0, WRAP - 1)}…`
  return kept
}

const r1 = (x: number): number => Math.round(x * 10) / 10

interface Box {
  readonly node: SvgNode | null
  readonly id: string
  readonly lines: ReadonlyArray<string>
  readonly width: number
  readonly height: number
}

const boxOf = (id: string, node: SvgNode | null): Box => {
  if (node === null) return { node, id, lines: [id === START ? "start" : "end"], width: 56, height: 32 }
  const lines = wrap(node.label)
  const all = node.detail === undefined ? lines : [...lines, node.detail]
  const width = Math.max(80, Math.max(...all.map((l) => l.length)) * CHAR_W + 20)
  return { node, id, lines, width, height: all.length * LINE_H + 14 }
}

const nodeSvg = (b: Box, x: number, y: number): Html => {
  const left = r1(x - b.width / 2)
  const top = r1(y - b.height / 2)
  if (b.node === null) {
    return html`<g class="terminal" transform="translate(${left} ${top})"><rect width="${b.width}" height="${b.height}" rx="16" fill="#eee" stroke="#666"></rect><text x="${b.width / 2}" y="${21}" text-anchor="middle" font-size="12">${b.lines[0]}</text></g>`
  }
  const n = b.node
  const texts = b.lines.map((l, i) => html`<text x="10" y="${20 + i * LINE_H}" font-size="12">${l}</text>`)
  const detail =
    n.detail === undefined ? "" : html`<text x="10" y="${20 + b.lines.length * LINE_H}" font-size="11" fill="#666">${n.detail}</text>`
  return html`<g class="node" data-node-id="${n.id}" transform="translate(${left} ${top})"><a href="#node-${n.id}"><title>${n.label}${n.detail === undefined ? "" : ` (${n.detail})`}</title><rect width="${b.width}" height="${b.height}" rx="6" fill="${n.highlight === true ? "#e8f4ea" : "#fff"}" stroke="${n.highlight === true ? "#2e7d32" : "#444"}" stroke-width="${n.highlight === true ? 2 : 1}"></rect>${texts}${detail}</a></g>`
}

/** Nodes (real ones; START and END are added when an edge names them) and edges, as one `<svg>`. */
export const graphSvg = (graph: { readonly nodes: ReadonlyArray<SvgNode>; readonly edges: ReadonlyArray<SvgEdge> }): Html => {
  const g = new graphlib.Graph({ multigraph: false })
  g.setGraph({ rankdir: "LR", nodesep: 18, ranksep: 44, marginx: 12, marginy: 12 })
  g.setDefaultEdgeLabel(() => ({}))
  const boxes = new Map<string, Box>()
  for (const n of graph.nodes) boxes.set(n.id, boxOf(n.id, n))
  for (const e of graph.edges)
    for (const id of [e.from, e.to]) if (!boxes.has(id) && (id === START || id === END)) boxes.set(id, boxOf(id, null))
  for (const b of boxes.values()) g.setNode(b.id, { width: b.width, height: b.height })
  const edges = graph.edges.filter((e) => boxes.has(e.from) && boxes.has(e.to))
  for (const e of edges) g.setEdge(e.from, e.to)
  layout(g)
  const width = Math.ceil((g.graph().width as number | undefined) ?? 0)
  const height = Math.ceil((g.graph().height as number | undefined) ?? 0)
  const edgeSvg = g.edges().map((e) => {
    const points = (g.edge(e)?.points ?? []) as ReadonlyArray<{ x: number; y: number }>
    const d = points.map((p, i) => `${i === 0 ? "M" : "L"} ${r1(p.x)} ${r1(p.y)}`).join(" ")
    return html`<path d="${d}" fill="none" stroke="#888" stroke-width="1.5" marker-end="url(#graph-arrow)"></path>`
  })
  const nodeSvgs = [...boxes.values()].map((b) => {
    const at = g.node(b.id) as { x: number; y: number }
    return nodeSvg(b, at.x, at.y)
  })
  return html`<svg class="graph" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="strategy graph">
<defs><marker id="graph-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M 0 0 L 10 5 L 0 10 z" fill="#888"></path></marker></defs>
<g class="edges">${edgeSvg}</g>${nodeSvgs}</svg>`
}
