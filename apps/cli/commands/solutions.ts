/**
 * `bun core solutions run [--suite shop|forum|travel] [--instance ID] [--out DIR] [--json]`: every
 * scripted solution (one per path family) of the suite's train instances, run through the
 * real web environment and checked by the instance's ground-truth checker. The running and
 * checking live with the evaluation code in apps/sites/solutions; this command only prints.
 * With `--out`, the primary family's run is written as the instance's expert demo
 * (`DIR/<suite>/<instance>/demo.json`, core-demo v1: `bun core ingest DIR`). Exit 1 when
 * any scripted solution fails its checker ("n/a": the family does not apply to the instance).
 */
import { Effect } from "effect"
import { runSolutions } from "@core/sites/solutions"
import { CliError } from "../Cli.ts"
import type { Command } from "../Cli.ts"
import type { Failure } from "../Failures.ts"

export const solutionsRun: Command<Failure> = {
  name: "solutions run",
  summary:
    "run the scripted solutions of the train instances (every path family) in the real web environment, check each with its ground-truth checker, optionally write the primary runs as expert demos",
  flags: {
    suite: { kind: "string", description: "the suite: shop, forum or travel (default shop)" },
    instance: { kind: "string", description: "only this train instance" },
    out: { kind: "string", description: "write the primary family's run of each instance as a demo folder under DIR/<suite>/<instance>/" },
    json: { kind: "boolean", description: "print one JSON object per (instance, family) instead of a table" }
  },
  run: (args) =>
    Effect.gen(function* () {
      const results = yield* runSolutions({
        suite: args.flags.suite as string | undefined,
        instance: args.flags.instance as string | undefined,
        out: args.flags.out as string | undefined,
        progress: (line) => console.error(`solutions: ${line}`)
      })
      if (args.flags.json === true) for (const r of results) console.log(JSON.stringify(r))
      else {
        for (const r of results)
          console.log(
            `${r.outcome.toUpperCase().padEnd(4)}  ${r.instance.padEnd(30)}  ${(r.family + (r.primary ? "*" : "")).padEnd(20)}  ${r.reason}`
          )
        const count = (o: string) => results.filter((r) => r.outcome === o).length
        console.log(
          `\n${results.length} scripted runs: ${count("pass")} pass, ${count("fail")} fail, ${count("n/a")} not applicable (* primary family${args.flags.out ? `; demos in ${String(args.flags.out)}` : ""})`
        )
      }
      const failed = results.filter((r) => r.outcome === "fail")
      if (failed.length > 0)
        return yield* new CliError({
          message: `${failed.length} scripted solution(s) failed their checker, first: ${failed[0]!.instance} ${failed[0]!.family}: ${failed[0]!.reason}`
        })
    })
}
