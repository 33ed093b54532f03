/**
 * The learned arm plays held-out episodes as a run's rounds do and the checkers judge them:
 * the learner the recorded fixture run trained through round 2 and an untrained one (it only
 * explores), one after the other in one browser, on two held-out forum tasks in real
 * Chromium. What is asserted is the evaluation's shape (every task judged once per arm, the
 * tally the per-task shares add up to), not how well the learner does.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DirectoryBlobStore } from "@core/blobstore"
import { loadConfig } from "@core/config"
import { readRunLog } from "@core/engine"
import { EmbeddedStore } from "@core/eventstore"
import { runTaskOf } from "@core/sites/app"
import { loadSuites } from "@core/sites/suites"
import { armAt, heldOutTaskOf, sealedRun } from "../ArmModels.ts"
import type { ArmModel } from "../ArmModels.ts"
import { evalApp } from "../EvalApp.ts"
import { evaluatePolicies } from "../PolicyEval.ts"

const FIXTURE = join(import.meta.dir, "..", "..", "..", "tests", "fixtures", "replay-run-2")
const dir = mkdtempSync(join(tmpdir(), "core-learned-eval-"))
cpSync(FIXTURE, dir, { recursive: true })
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const TASKS = ["forum-open-board-3", "forum-top-post-3"]

test("the learned arm, trained and untrained, on two held-out tasks: each episode judged by the checker, per arm", async () => {
  const layer = Layer.merge(EmbeddedStore.layer({ path: join(dir, "events.db") }), DirectoryBlobStore.layer({ dir: join(dir, "blobs") }))
  const { events } = await Effect.runPromise(Effect.provide(readRunLog("run-mxcb6ggg-b433bd"), layer))
  const suites = await Effect.runPromise(loadSuites())
  const tasks = suites
    .flatMap((s) => s.tasks)
    .filter((t) => TASKS.includes(t.id))
    .map(runTaskOf)
  expect(tasks.map((t) => t.id).sort()).toEqual(TASKS)
  const run = sealedRun(events, 2)
  if (typeof run === "string") throw new Error(run)
  const trained = armAt(run, "learned", tasks.map(heldOutTaskOf))
  expect(trained.arm.model).not.toBeNull()
  const untrained: ArmModel = { kind: "learned", model: null, exploration: run.state.config!.exploration }
  const config = await Effect.runPromise(loadConfig({ env: {}, flags: { "data-dir": dir, store: "embedded" } }))
  const secrets = { allowed: () => new Set<string>(), coreOwn: () => undefined }
  const judged: Array<string> = []
  const results = await Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(evalApp(undefined, config, secrets), ({ app, environment }) =>
        evaluatePolicies(
          {
            app,
            environment,
            tasks,
            arms: [trained.arm, untrained],
            seed: "learned-eval",
            samples: 1,
            stepBudget: 6,
            parallel: 1,
            onEpisode: (taskId) => judged.push(taskId)
          },
          layer
        )
      )
    )
  )
  expect(results).toHaveLength(2)
  for (const r of results) {
    expect(r.episodes).toBe(2)
    expect(Object.keys(r.per_task).sort()).toEqual(TASKS)
    expect(r.successes).toBe(Object.values(r.per_task).filter((x) => x === 1).length)
    expect(r.success_rate).toBe(r.successes / 2)
  }
  expect(judged.sort()).toEqual([...TASKS, ...TASKS].sort())
}, 120_000)
