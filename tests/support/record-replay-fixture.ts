/**
 * Records a replay fixture in an embedded store: a small bundled run with the exploration
 * policy and no rollout screenshots. `tests/fixtures/replay-run` (two forum tasks, one
 * round) was recorded before the run config was typed, so it holds the first version of
 * every rule; `tests/fixtures/replay-run-2` (`--two-rounds`: four tasks across the three
 * sites, with forms, an answer and a booking, two rounds, so expansion, extrapolation and
 * promotion act) was recorded when every rule registry was introduced, so it holds the
 * versions of that day. Each is recorded once, with the code of its day, and every later
 * version of CORE must replay it with 0 divergences (`tests/replay-fixture.test.ts`).
 * Re-record one only when a change is meant to break replay of old runs, which the project
 * does not allow. Demos and ground truth the run wrote beside the log are not needed to
 * replay and are left out of the fixture.
 *
 *   bun tests/support/record-replay-fixture.ts [dir] [--two-rounds]
 */
import { Effect } from "effect"
import { rmSync } from "node:fs"
import { resolve } from "node:path"
import { loadSuites } from "@core/sites/suites"
import { openStore } from "@core/run"
import { runOnBundledSites } from "@core/sites/run"
import { Progress } from "../../apps/cli/Progress.ts"

const twoRounds = process.argv.includes("--two-rounds")
const dir = resolve(process.argv.slice(2).find((a) => !a.startsWith("--")) ?? `tests/fixtures/replay-run${twoRounds ? "-2" : ""}`)
const TASKS = twoRounds
  ? ["forum-create-post-1", "forum-top-post-1", "shop-change-email-1", "travel-book-flight-1"]
  : ["forum-open-board-1", "forum-upvote-1"]

const program = Effect.gen(function* () {
  rmSync(dir, { recursive: true, force: true })
  const suites = yield* loadSuites()
  const tasks = suites.flatMap((s) => s.tasks).filter((t) => TASKS.includes(t.id))
  const flags = { store: "embedded", "data-dir": dir, seed: "replay-fixture" }
  const opened = yield* openStore({ flags })
  const outcome = yield* runOnBundledSites(
    opened.config,
    opened.layer,
    {
      command: "run",
      tasks,
      rounds: twoRounds ? 2 : 1,
      samples: 2,
      stepBudget: 12,
      parallel: 2,
      policy: "exploration",
      platform: "web",
      screenshots: "none",
      sources: {}
    },
    new Progress("run")
  )
  rmSync(`${dir}/demos`, { recursive: true, force: true })
  rmSync(`${dir}/eval`, { recursive: true, force: true })
  console.log(outcome.runId)
})

Effect.runPromise(program).catch((e) => {
  console.error(`error: ${e instanceof Error ? e.message : String(e)}`)
  process.exit(1)
})
