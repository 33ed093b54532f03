/**
 * `bun core ingest <file|dir> [--json]`: expert demos (libs/demos/README.md) into the log.
 * Each valid demo: its blobs into the blob store first, then one DemoIngested on
 * `ws.demo.<demoId>` (skipped when identical to the stream's last event). Each invalid one:
 * a one-line error and a DemoRejected. Exit 1 when any file was rejected.
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { isAbsolute, relative, resolve } from "node:path"
import { loadSuites } from "@core/sites/suites"
import { findDemoFiles, ingestDemo, loadDemo, rejectDemo } from "@core/demos"
import { CliError, UsageError } from "../Cli.ts"
import type { Command } from "../Cli.ts"
import { openStore } from "../Store.ts"
import { commonConfigFlags } from "./config.ts"

/** How a file is named in events and messages: relative to the working directory when inside it. */
const displayPath = (file: string): string => {
  const rel = relative(process.cwd(), resolve(file))
  return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? resolve(file) : rel
}

export const ingest: Command = {
  name: "ingest",
  summary: "ingest expert demos: a demo.json file, or every demo.json under a directory (format: libs/demos/README.md)",
  positionals: ["file|dir"],
  flags: {
    json: { kind: "boolean", description: "print one JSON object { ingested, skipped, rejected } instead of a summary line" },
    ...commonConfigFlags
  },
  run: (args) =>
    Effect.gen(function* () {
      if (args.positionals.length !== 1) return yield* new UsageError({ message: "ingest takes one path: a demo.json file or a directory of demos" })
      const target = args.positionals[0]!
      if (!existsSync(target)) return yield* new UsageError({ message: `${target}: no such file or directory` })
      const files = findDemoFiles(target).map(displayPath)
      if (files.length === 0) return yield* new CliError({ message: `${target}: no demo.json files found` })
      const suites = yield* loadSuites().pipe(Effect.mapError((e) => new CliError({ message: e.message })))
      const tasks = new Set(suites.flatMap((s) => s.tasks.map((t) => t.id)))
      const opened = yield* openStore(args)
      const program = Effect.gen(function* () {
        const summary = { ingested: 0, skipped: 0, rejected: [] as Array<{ file: string; reason: string }> }
        for (const [i, file] of files.entries()) {
          const loaded = yield* Effect.result(loadDemo(file, { tasks }))
          if (loaded._tag === "Failure") {
            const error = loaded.failure
            yield* rejectDemo(error, file)
            console.error(`ingest: ${i + 1}/${files.length} ${file} rejected: ${error.reason}`)
            summary.rejected.push({ file, reason: error.reason })
            continue
          }
          const demo = loaded.success
          const outcome = yield* ingestDemo(demo, file).pipe(
            Effect.mapError((e) => new CliError({ message: `${file}: ${e instanceof Error ? e.message : String(e)}` }))
          )
          if (outcome === "written") summary.ingested++
          else summary.skipped++
          console.error(`ingest: ${i + 1}/${files.length} ${file} ${demo.demoId} (${demo.taskId}, ${demo.steps.length} steps, ${demo.blobs.length} blobs) ${outcome === "written" ? "ingested" : "unchanged"}`)
        }
        return summary
      })
      const s = yield* Effect.provide(program, opened.layer)
      if (args.flags.json === true) console.log(JSON.stringify(s))
      else console.log(`${files.length} demo files: ${s.ingested} ingested, ${s.skipped} unchanged, ${s.rejected.length} rejected`)
      const [first] = s.rejected
      if (first !== undefined) {
        // The one `error:` line: the rejection itself, or the first of several.
        const line = `${first.file}: ${first.reason}`
        return yield* new CliError({ message: s.rejected.length === 1 ? line : `${s.rejected.length} of ${files.length} demo files rejected; first: ${line}` })
      }
    })
}
