/**
 * The ending check's faults: a sandbox that cannot decide fails the attempt like a browser
 * crash (tried again, then an infra-error trajectory, never a verdict), and an episode that
 * carries a check where no sandbox is provided is a wiring fault that says so, not a
 * trajectory that silently plays on unchecked.
 */
import { describe, expect, test } from "bun:test"
import { Cause, Effect, Exit, Layer } from "effect"
import { labelFunctionId } from "@core/events"
import { nodeIdOf, pathIdOf } from "@core/domain"
import { Randomness } from "@core/engine"
import { Sandbox } from "@core/sandbox"
import type { Verdict } from "@core/sandbox"
import { endCheckOf } from "../EpisodeEnd.ts"
import { rollout, trajectoryIdOf } from "../Rollout.ts"
import type { RolloutInput } from "../Rollout.ts"
import { noModels } from "@core/engine"
import { forumSite, openBoard, openBoardNodes } from "./specs/Forum.ts"

const source = { kind: "demo" as const, id: "forum-open-board-1-script" }
const nodeIds = openBoardNodes.map((n) => nodeIdOf(n.semanticKey))
const graph = {
  taskId: openBoard.taskId,
  nodes: openBoardNodes.map((n, i) => ({
    nodeId: nodeIds[i]!,
    lfId: labelFunctionId(n.code),
    description: n.description,
    semanticKey: n.semanticKey,
    how: "demo" as const,
    source
  })),
  paths: [{ pathId: pathIdOf(openBoard.taskId, nodeIds), nodeIds, source }]
}
const check = endCheckOf(graph, new Map(openBoardNodes.map((n) => [labelFunctionId(n.code), { code: n.code }])), "4")!

const input: RolloutInput = {
  causationId: "cause",
  trajectoryId: trajectoryIdOf(1, openBoard.taskId, 0),
  taskId: openBoard.taskId,
  instruction: openBoard.instruction,
  round: 1,
  sample: 0,
  stepBudget: 4,
  policy: { kind: "exploration" },
  exploration: "5",
  end: check
}

/** A sandbox whose every evaluation is this verdict, counting them. */
const sandboxSaying = (verdict: Verdict) => {
  let asked = 0
  const layer = Layer.succeed(
    Sandbox,
    Sandbox.of({
      evaluate: () => Effect.sync(() => (asked++, verdict)),
      evaluateBatch: (rs) => Effect.sync(() => rs.map(() => (asked++, verdict)))
    })
  )
  return { layer, asked: () => asked }
}

const play = (more: Layer.Layer<never> | Layer.Layer<Sandbox>, played: RolloutInput = input) =>
  Effect.runPromiseExit(rollout(played).pipe(Effect.provide(Layer.mergeAll(forumSite(), Randomness.layer("0"), noModels, more))))

describe("the ending check's faults", () => {
  test("a sandbox that cannot decide: every attempt fails after its first step, and the trajectory is an infra-error", async () => {
    const sandbox = sandboxSaying({ kind: "infra-error", reason: "crash: worker exited" })
    const exit = await play(sandbox.layer)
    if (!Exit.isSuccess(exit)) throw Cause.squash(exit.cause)
    expect(exit.value).toMatchObject({ outcome: "infra-error", steps: [], attempts: 3, infraError: "label sandbox: crash: worker exited" })
    // One check per attempt, each the path's last LF, asked once.
    expect(sandbox.asked()).toBe(3)
  })

  test("a sandbox whose LFs never hold: the episode plays on as it would unchecked, and records no ending", async () => {
    const sandbox = sandboxSaying({ kind: "ok", satisfiedAt: -1 })
    const exit = await play(sandbox.layer)
    const { end: _, ...unchecked } = input
    const plain = await play(Layer.empty, unchecked)
    if (!Exit.isSuccess(exit) || !Exit.isSuccess(plain)) throw new Error("an episode failed")
    expect(exit.value.outcome).not.toBe("infra-error")
    expect(exit.value).toEqual(plain.value)
    expect("finished" in exit.value).toBe(false)
    // Checked after every step but one that ended the episode itself: never after a status or an answer.
    const last = exit.value.steps.at(-1)!.action.kind
    const checked = exit.value.steps.length - (last === "status" || last === "answer" ? 1 : 0)
    expect(sandbox.asked()).toBe(checked)
  })

  test("a check with no sandbox provided is a defect that names the episode", async () => {
    const exit = await play(Layer.empty)
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit)) expect(String(Cause.squash(exit.cause))).toContain(`episode ${input.trajectoryId} ends on a satisfied path`)
  })
})
