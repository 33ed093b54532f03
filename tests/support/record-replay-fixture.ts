/**
 * Records the replay fixture (`tests/fixtures/replay-run`): a small bundled run — two forum
 * tasks, one round, two samples, exploration policy, no rollout screenshots — in an embedded
 * store. It is recorded once, with the code of its day, and every later version of CORE
 * must replay it with 0 divergences (`tests/replay-fixture.test.ts`). Re-record it only
 * when a change is meant to break replay of old runs, which the project does not allow.
 *
 *   bun tests/support/record-replay-fixture.ts [dir]
 */
import { Effect } from "effect"
import { rmSync } from "node:fs"
import { resolve } from "node:path"
import { loadSuites } from "@core/sites/suites"
import { runOnBundledSites } from "../../apps/cli/BundledRun.ts"
import { openStore } from "../../apps/cli/Store.ts"

const dir = resolve(process.argv[2] ?? "tests/fixtures/replay-run")
const TASKS = ["forum-open-board-1", "forum-upvote-1"]

const program = Effect.gen(function* () {
  rmSync(dir, { recursive: true, force: true })
  const suites = yield* loadSuites()
  const tasks = suites.flatMap((s) => s.tasks).filter((t) => TASKS.includes(t.id))
  const flags = { store: "embedded", "data-dir": dir, seed: "replay-fixture" }
  const opened = yield* openStore({ flags, positionals: [], given: new Set(Object.keys(flags)) })
  const outcome = yield* runOnBundledSites(opened.config, opened.layer, {
    command: "run",
    tasks,
    rounds: 1,
    samples: 2,
    stepBudget: 12,
    parallel: 2,
    policy: "exploration",
    platform: "web",
    screenshots: "none",
    sources: {}
  })
  console.log(outcome.runId)
})

Effect.runPromise(program).catch((e) => {
  console.error(`error: ${e instanceof Error ? e.message : String(e)}`)
  process.exit(1)
})
