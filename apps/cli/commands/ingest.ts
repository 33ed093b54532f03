/**
 * `bun core ingest <file|dir> [--json]`: expert demos (docs/demos.md) into the log.
 * Each valid demo: its blobs into the blob store first, then one DemoIngested on
 * `ws.demo.<demoId>` (skipped when identical to the stream's last event). Each invalid one:
 * a one-line error and a DemoRejected. A file that cannot be written (store error, another
 * writer first) is its own line, and the rest are still tried. Exit 1 when any file was
 * rejected or failed. Reads are capped by `ingest.maxBlobBytes` / `ingest.maxDemoBytes`.
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { isAbsolute, relative, resolve } from "node:path"
import { loadPack, packRegistration } from "@core/apps"
import { registerTasks } from "@core/pipeline"
import { loadSuites } from "@core/sites/suites"
import { ingestLimits } from "@core/config"
import { findDemoFiles, ingestFiles, oneLine } from "@core/demos"
import { CliError, UsageError } from "../Cli.ts"
import type { Command } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { openStore } from "@core/run"
import { commonConfigFlags, configFlags } from "../ConfigFlags.ts"

/** How a file is named in events and messages: relative to the working directory when inside it. */
const displayPath = (file: string): string => {
  const rel = relative(process.cwd(), resolve(file))
  return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? resolve(file) : rel
}

export const ingest: Command<Failure> = {
  name: "ingest",
  summary: "ingest expert demos: a demo.json file, or every demo.json under a directory (format: docs/demos.md)",
  positionals: ["file|dir"],
  flags: {
    json: { kind: "boolean", description: "print one JSON object { ingested, skipped, rejected, failed } instead of a summary line" },
    app: {
      kind: "string",
      description: "an app pack folder: the demos are of its tasks, which are registered too (default: the bundled suites')"
    },
    ...commonConfigFlags,
    ...configFlags(["ingest.maxBlobBytes", "ingest.maxDemoBytes"])
  },
  run: (args) =>
    Effect.gen(function* () {
      if (args.positionals.length !== 1)
        return yield* new UsageError({ message: "ingest takes one path: a demo.json file or a directory of demos" })
      const target = args.positionals[0]!
      if (!existsSync(target)) return yield* new UsageError({ message: `${target}: no such file or directory` })
      const files = findDemoFiles(target).map(displayPath)
      if (files.length === 0) return yield* new CliError({ message: `${target}: no demo.json files found` })
      const appDir = args.flags.app as string | undefined
      // A demo names a task of the pack when one is given, else of the bundled suites.
      const pack = appDir === undefined ? null : yield* loadPack(appDir)
      const tasks =
        pack === null ? new Set((yield* loadSuites()).flatMap((s) => s.tasks.map((t) => t.id))) : new Set(pack.tasks.map((t) => t.id))
      const opened = yield* openStore(args)
      // A pack's tasks are registered with its demos, so `infer` knows their instructions.
      const register = pack === null ? Effect.void : Effect.asVoid(registerTasks(pack.tasks.map((t) => packRegistration(pack, t))))
      const program = Effect.andThen(
        register,
        ingestFiles(files, { tasks, ...ingestLimits(opened.config) }, (line) => console.error(`ingest: ${line}`))
      )
      const s = yield* Effect.provide(program, opened.layer)
      if (args.flags.json === true) console.log(JSON.stringify(s))
      else {
        const failed = s.failed.length > 0 ? `, ${s.failed.length} failed` : ""
        console.log(`${files.length} demo files: ${s.ingested} ingested, ${s.skipped} unchanged, ${s.rejected.length} rejected${failed}`)
      }
      const problems = [...s.rejected.map((r) => `${r.file}: ${r.reason}`), ...s.failed.map((f) => `${f.file}: ${f.error}`)].map((l) =>
        oneLine(l, 1000)
      )
      const [first] = problems
      if (first !== undefined) {
        // The one `error:` line: the problem itself, or the first of several.
        return yield* new CliError({
          message: problems.length === 1 ? first : `${problems.length} of ${files.length} demo files rejected or failed; first: ${first}`
        })
      }
    })
}
