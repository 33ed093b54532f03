/**
 * `bun core config show [--json]`: the merged config and where each value came from, so a
 * user can see why a run used the store, URL or directory it did. Values are shown in
 * their recordable form: a password in a URL is never printed.
 */
import { Effect } from "effect"
import { configKeys, forRecording, loadConfig } from "@core/config"
import type { Command } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { configFlags } from "../ConfigFlags.ts"

const show = (value: unknown): string => (value === null ? "(none)" : String(value))

export const configShow: Command<Failure> = {
  name: "config show",
  summary: "print the merged config and the source of each value",
  flags: {
    json: { kind: "boolean", description: "print { values, sources } as JSON" },
    ...configFlags(configKeys)
  },
  run: (args) =>
    Effect.gen(function* () {
      const config = yield* loadConfig({ flags: args.flags })
      const recorded = forRecording(config)
      if (args.flags.json === true) {
        console.log(JSON.stringify({ values: recorded.config, sources: recorded.configSources }, null, 2))
        return
      }
      const rows = configKeys.map((k) => [k, show(recorded.config[k]), recorded.configSources[k]] as const)
      const w0 = Math.max(3, ...rows.map((r) => r[0].length))
      const w1 = Math.max(5, ...rows.map((r) => r[1].length))
      const line = (a: string, b: string, c: string) => `${a.padEnd(w0)}  ${b.padEnd(w1)}  ${c}`
      console.log(`config file: ${config.file.path}${config.file.found ? "" : " (not found: defaults, environment and flags only)"}`)
      console.log("")
      console.log(line("key", "value", "source"))
      for (const [k, v, s] of rows) console.log(line(k, v, s))
    })
}
