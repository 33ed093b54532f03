/**
 * `bun core tasks list` and `bun core tasks register`: the task suites bundled with the
 * sites (apps/sites/suites/*.json), listed, and written to the log as one TaskRegistered
 * per instance (stream `ws.task.<id>`). Registering again writes only what changed.
 */
import { Effect } from "effect"
import { loadPack, packRegistration } from "@core/apps"
import { registerTasks } from "@core/pipeline"
import { registrationOf } from "@core/sites/app"
import { loadSuites } from "@core/sites/suites"
import { demosByTask } from "@core/demos"
import type { Suite } from "@core/sites/suites"
import { UsageError } from "../Cli.ts"
import type { Command, ParsedArgs } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { openStore } from "@core/run"
import { commonConfigFlags } from "../ConfigFlags.ts"

const suiteFlag = { suite: { kind: "string" as const, description: "only this suite (default: every bundled suite)" } }

/** The bundled suites, or the one `--suite` names. */
const chosenTasks = (args: ParsedArgs) =>
  Effect.gen(function* () {
    const suites: ReadonlyArray<Suite> = yield* loadSuites()
    const name = args.flags.suite as string | undefined
    if (name !== undefined && !suites.some((s) => s.suite === name)) {
      return yield* new UsageError({ message: `unknown suite '${name}' (known: ${suites.map((s) => s.suite).join(", ")})` })
    }
    return suites.filter((s) => name === undefined || s.suite === name).flatMap((s) => s.tasks)
  })

export const tasksList: Command<Failure> = {
  name: "tasks list",
  summary:
    "list the bundled suites' task instances: site, template, split, path families, and whether a demo exists (read from the log's ws.demo.* streams; demos come from `bun core ingest`)",
  flags: {
    ...suiteFlag,
    app: { kind: "string", description: "list an app pack's tasks (its folder) instead of the bundled suites'" },
    ...commonConfigFlags,
    json: { kind: "boolean", description: "print one JSON object per line instead of a table" }
  },
  run: (args) =>
    Effect.gen(function* () {
      const appDir = args.flags.app as string | undefined
      if (appDir !== undefined && args.flags.suite !== undefined)
        return yield* new UsageError({ message: "--suite chooses bundled tasks; --app lists the pack's" })
      const pack = appDir === undefined ? null : yield* loadPack(appDir)
      const demos = yield* Effect.provide(demosByTask, (yield* openStore(args)).layer)
      // A pack's task has no template, seed or path families; its "template" column shows its tags.
      const rows =
        pack !== null
          ? pack.tasks.map((t) => ({
              id: t.id,
              suite: pack.config.name,
              site: pack.config.name,
              template: t.tags.join(","),
              category: null,
              split: t.split,
              pathFamilies: [] as Array<string>,
              demo: demos.has(t.id),
              demoIds: demos.get(t.id) ?? [],
              siteSeed: null,
              instruction: t.instruction
            }))
          : (yield* chosenTasks(args)).map((t) => ({
              id: t.id,
              suite: t.suite,
              site: t.site,
              template: t.templateId,
              category: t.category as string | null,
              split: t.split,
              pathFamilies: t.pathFamilies.map((f) => f.id),
              demo: demos.has(t.id),
              demoIds: demos.get(t.id) ?? [],
              siteSeed: t.siteSeed as number | null,
              instruction: t.instruction
            }))
      if (args.flags.json === true) {
        for (const r of rows) console.log(JSON.stringify(r))
        return
      }
      const table = [
        ["INSTANCE", "SITE", "TEMPLATE", "SPLIT", "PATH FAMILIES", "DEMO"],
        ...rows.map((r) => [r.id, r.site, r.template, r.split, r.pathFamilies.join(","), r.demo ? "yes" : "no"])
      ]
      const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)))
      for (const r of table) console.log(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  "))
      console.log(
        `\n${rows.length} instances, ${rows.filter((r) => r.split === "held-out").length} held out, ${rows.filter((r) => r.demo).length} with a demo (\`bun core ingest\`)`
      )
    })
}

export const tasksRegister: Command<Failure> = {
  name: "tasks register",
  summary: "write one TaskRegistered per suite instance to the log (idempotent: unchanged tasks are skipped)",
  flags: {
    ...suiteFlag,
    app: { kind: "string", description: "register an app pack's tasks (its folder) instead of the bundled suites'" },
    ...commonConfigFlags
  },
  run: (args) =>
    Effect.gen(function* () {
      const appDir = args.flags.app as string | undefined
      if (appDir !== undefined && args.flags.suite !== undefined)
        return yield* new UsageError({ message: "--suite chooses bundled tasks; --app registers the pack's" })
      const pack = appDir === undefined ? null : yield* loadPack(appDir)
      const tasks = pack === null ? (yield* chosenTasks(args)).map(registrationOf) : pack.tasks.map((t) => packRegistration(pack, t))
      const opened = yield* openStore(args)
      const program = registerTasks(tasks, (line) => console.error(`tasks: ${line}`))
      const c = yield* Effect.provide(program, opened.layer)
      console.log(`${tasks.length} tasks: ${c.registered} registered, ${c.updated} updated, ${c.unchanged} unchanged`)
    })
}

/** Both commands, for the command list. */
export const tasks: ReadonlyArray<Command<Failure>> = [tasksList, tasksRegister]
