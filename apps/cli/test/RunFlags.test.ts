/**
 * The flags for a run's settings are built from @core/pipeline's RUN_FIELDS
 * (ConfigFlags.ts): the same names, help and defaults `run` and `demo` declared by hand, the
 * same config sources and the same refusals of a count that is not one.
 */
import { describe, expect, test } from "bun:test"
import { Effect, Exit } from "effect"
import { RUN_FIELDS } from "@core/pipeline"
import type { RunFlagField } from "@core/pipeline"
import { parseArgs } from "../Cli.ts"
import type { Command } from "../Cli.ts"
import { run } from "../commands/run.ts"
import { RUN_FLAG_NAMES, runCount, runFlagSources, runFlags } from "../ConfigFlags.ts"

const argsOf = (argv: ReadonlyArray<string>) => Effect.runSync(parseArgs(run as Command, argv))

describe("run settings as flags", () => {
  test("given the table, when its flags are built, then each says what the hand-written flag said", () => {
    expect(runFlags(["rounds", "stepBudget", "explorePerTask", "extrapolatePerTask", "tasks", "policy"])).toEqual({
      rounds: { kind: "number", description: "rounds to run (default 1)" },
      "step-budget": { kind: "number", description: "steps per rollout before it is cut off (default 12)" },
      "explore-per-task": {
        kind: "number",
        description: "explorer episodes per task and round (default 3; 0 with --expand-per-task 0: no expansion)"
      },
      "extrapolate-per-task": {
        kind: "number",
        description: "tasks extrapolation may add per task and round (default 1; 0: no extrapolation)"
      },
      tasks: { kind: "string", description: "only these task ids (comma-separated)" },
      // The hand-written flag's, with the learned policy that came after it.
      policy: {
        kind: "string",
        description:
          "exploration (seeded, no model; default), embedded (the retrieval policy trained on each round's data, round 0 = the demos), learned (the learner's parametric policy, trained the same way) or model (models.baseUrl)",
        choices: ["exploration", "embedded", "learned", "model"]
      }
    })
    expect(runFlags(["samples"], { samples: "rollouts per task" })).toEqual({
      samples: { kind: "number", description: "rollouts per task (default 5)" }
    })
  })

  test("given every setting a flag sets, when `run` is declared, then it takes that flag as the table builds it", () => {
    const flagged = Object.entries(RUN_FIELDS).flatMap(([n, f]) =>
      f.flag === undefined ? [] : [[n as RunFlagField, f.flag.name] as const]
    )
    expect(flagged.map(([, flag]): string => flag)).toEqual([...RUN_FLAG_NAMES])
    for (const [n, flag] of flagged) expect(run.flags[flag]).toEqual(runFlags([n])[flag]!)
  })

  test("given flags on the command line, when their sources are read, then each names its recorded key", () => {
    expect(runFlagSources(argsOf(["--rounds", "3", "--step-budget", "4"]), ["rounds", "samples", "stepBudget"])).toEqual({
      "run.rounds": "flag:--rounds",
      "run.stepBudget": "flag:--step-budget"
    })
  })

  test("given a count that is not one, when read, then the usage error names the flag; without the flag, the default", () => {
    const exit = Effect.runSyncExit(runCount(argsOf(["--expand-per-task", "-1"]), "expandPerTask", 0))
    expect(Exit.isFailure(exit) && String(exit.cause)).toContain("--expand-per-task must be a whole number ≥ 0, got -1")
    expect(Effect.runSync(runCount(argsOf([]), "stepBudget"))).toBe(12)
  })
})
