/**
 * Given a task's graph and a partial trajectory's evidence, when the expansion rule is
 * asked whether the run solved the task without a checker, then… (Expansion.ts) — pure.
 */
import { describe, expect, test } from "bun:test"
import {
  addNode,
  addPath,
  emptyGraph,
  expansionPath,
  nodeIdOf,
  normalizeKey,
  reachedTerminal,
  terminalNodes,
  undoneAfterGoal
} from "../mod.ts"
import type { Action } from "@core/events"
import type { GraphNode, IdentifiedKeyStep, SemanticKey, StrategyGraph } from "../mod.ts"

const source = { kind: "demo" as const, id: "d1" }

const node = (name: string, kind: "click" | "type" | "status" | "answer" = "click"): GraphNode => {
  const key: SemanticKey = {
    actionKind: kind,
    role: kind === "click" ? "button" : null,
    name: kind === "click" ? name : null,
    value: kind === "click" ? null : name,
    urlPattern: null
  }
  return { nodeId: nodeIdOf(key), lfId: `lf-${name}`, description: name, semanticKey: normalizeKey(key), how: "demo", source }
}

const SEARCH = node("search", "type")
const OPEN = node("open")
const UPVOTE = node("upvote")
const DONE = node("complete", "status")
const ANSWER = node("42", "answer")

const graphOf = (...paths: ReadonlyArray<ReadonlyArray<GraphNode>>): StrategyGraph => {
  let g = emptyGraph("t1")
  for (const n of paths.flat()) g = addNode(g, n)
  for (const [i, p] of paths.entries()) g = addPath(g, { pathId: `p${i}`, nodeIds: p.map((n) => n.nodeId), source })
  return g
}

const complete: Action = { kind: "status", status: "complete" }
const giveUp: Action = { kind: "status", status: "infeasible" }
const held = (entries: Record<string, number>) => new Map(Object.entries(entries).map(([name, at]) => [`lf-${name}`, at]))

describe("terminal key steps", () => {
  test("given a path ending with a status, then the goal step before it and the status", () => {
    const g = graphOf([SEARCH, OPEN, UPVOTE, DONE])
    expect(terminalNodes(g, g.paths[0]!.nodeIds).map((n) => n.description)).toEqual(["upvote", "complete"])
  })

  test("given a path ending with a click, then that click alone", () => {
    const g = graphOf([SEARCH, OPEN])
    expect(terminalNodes(g, g.paths[0]!.nodeIds).map((n) => n.description)).toEqual(["open"])
  })
})

describe("reachedTerminal: solved without a checker", () => {
  const g = graphOf([SEARCH, OPEN, UPVOTE, DONE])

  test("given the goal step then the claimed status, in order, then solved — whatever came before", () => {
    const hit = reachedTerminal(g, held({ upvote: 3, complete: 5 }), complete)
    expect(hit).toEqual({
      pathId: "p0",
      terminal: [
        { nodeId: UPVOTE.nodeId, lfId: "lf-upvote", satisfiedAt: 3 },
        { nodeId: DONE.nodeId, lfId: "lf-complete", satisfiedAt: 5 }
      ]
    })
  })

  test("given no claim of success, or an 'infeasible' one, then not solved", () => {
    expect(reachedTerminal(g, held({ upvote: 3, complete: 5 }), { kind: "click", target: null })).toBeNull()
    expect(reachedTerminal(g, held({ upvote: 3, complete: 5 }), giveUp)).toBeNull()
    expect(reachedTerminal(g, held({ upvote: 3, complete: 5 }), null)).toBeNull()
  })

  test("given the goal step missing, or after the status, then not solved", () => {
    expect(reachedTerminal(g, held({ complete: 5 }), complete)).toBeNull()
    expect(reachedTerminal(g, held({ upvote: 6, complete: 5 }), complete)).toBeNull()
  })

  test("given a path that ends with an answer, then only an answer claims it", () => {
    const q = graphOf([OPEN, ANSWER])
    expect(reachedTerminal(q, held({ open: 1, "42": 2 }), complete)).toBeNull()
    expect(reachedTerminal(q, held({ open: 1, "42": 2 }), { kind: "answer", text: "42" })?.pathId).toBe("p0")
  })

  test("given an answer read on another page than the demo's, then only answerAlone (data rules 4) counts it solved", () => {
    const q = graphOf([SEARCH, OPEN, ANSWER])
    const listed = held({ search: 0, "42": 1 })
    const said: Action = { kind: "answer", text: "42" }
    expect(reachedTerminal(q, listed, said)).toBeNull()
    expect(reachedTerminal(q, listed, said, { answerAlone: true })).toEqual({
      pathId: "p0",
      terminal: [{ nodeId: ANSWER.nodeId, lfId: "lf-42", satisfiedAt: 1 }]
    })
    // A status path keeps its goal step: the claim alone proves nothing changed.
    expect(reachedTerminal(g, held({ complete: 5 }), complete, { answerAlone: true })).toBeNull()
    // The answer must still be right, and claimed as an answer.
    expect(reachedTerminal(q, held({ search: 0 }), said, { answerAlone: true })).toBeNull()
    expect(reachedTerminal(q, listed, complete, { answerAlone: true })).toBeNull()
  })

  test("given two paths, then the first whose terminal steps hold", () => {
    const two = graphOf([SEARCH, UPVOTE, DONE], [OPEN, DONE])
    expect(reachedTerminal(two, held({ open: 1, complete: 2 }), complete)?.pathId).toBe("p1")
  })
})

describe("undoneAfterGoal and the path a solved run adds", () => {
  const hit = {
    pathId: "p0",
    terminal: [
      { nodeId: UPVOTE.nodeId, lfId: "lf-upvote", satisfiedAt: 2 },
      { nodeId: DONE.nodeId, lfId: "lf-complete", satisfiedAt: 5 }
    ]
  }
  const key = (stepIndex: number, reason: IdentifiedKeyStep["reason"]): IdentifiedKeyStep => ({
    stepIndex,
    description: `step ${stepIndex}`,
    reason
  })

  test("given a state-changing step between the goal and the status (a downvote after the upvote), then undone", () => {
    expect(undoneAfterGoal([key(2, "state-changing"), key(3, "state-changing"), key(5, "final-status")], hit)).toBe(true)
  })

  test("given only steps before the goal, or navigation after it, then not undone", () => {
    expect(
      undoneAfterGoal([key(0, "state-changing"), key(2, "state-changing"), key(4, "reaches-final-page"), key(5, "final-status")], hit)
    ).toBe(false)
  })

  test("given the run's key-step nodes, then the path adds the terminal nodes it lacked, in step order, repeats once", () => {
    const path = expansionPath(
      [
        { stepIndex: 0, nodeId: OPEN.nodeId },
        { stepIndex: 1, nodeId: OPEN.nodeId },
        { stepIndex: 5, nodeId: DONE.nodeId }
      ],
      hit
    )
    expect(path).toEqual([OPEN.nodeId, UPVOTE.nodeId, DONE.nodeId])
  })

  test("given a key step at the goal's step (the page reached another way), then its own node stands for the goal", () => {
    const other = node("open-from-home")
    const path = expansionPath(
      [
        { stepIndex: 2, nodeId: other.nodeId },
        { stepIndex: 5, nodeId: DONE.nodeId }
      ],
      hit
    )
    expect(path).toEqual([other.nodeId, DONE.nodeId])
  })
})
