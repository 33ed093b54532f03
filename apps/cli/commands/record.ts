/**
 * `bun core record --task T [--site S] [--out DIR] [--demo-id ID] [--secret-env NAME] [--force] [--json]`: a
 * person demonstrates a bundled task instance in a headed Chromium (libs/env-web Recorder)
 * and the demonstration is written as a core-demo v1 folder, recordedWith "recorder" —
 * the format scripted solutions write, so `bun core ingest` takes either.
 *
 * With `--from steps.json`, a step file (docs/demos.md, "Step files") is played instead,
 * headless and without a display (`recordSteps` of @core/demos), and written with
 * recordedWith "script"; a step that cannot be played writes nothing. On a pack with an
 * `evaluate`, the played demo is judged on the instance it was played on before anything is
 * written, and a demo that does not do the task is refused (`--no-judge` writes it anyway).
 * A pack's task plays on one instance, started for the command. An Android pack's task
 * is only played this way, on the pack's Appium server, into a demo of platform "android".
 *
 * The person ends the recording from the terminal: `done`, `infeasible`, `answer <text>`
 * write the folder; `undo` drops the last step; `quit`, closing the browser window or the
 * end of stdin discard everything (nothing is written, exit 1). The folder is written only
 * at the end, demo.json last, so an interrupted recording leaves no demo behind.
 *
 * @example
 * xvfb-run -a bun core record --task shop-wishlist-add-1
 * // stderr: the instruction and the commands; stdout: demos/shop/shop-wishlist-add-1/demo.json
 */
import { DateTime, Effect, Queue, Schema } from "effect"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { DirectoryBlobStore } from "@core/blobstore"
import { loadDemo, loadStepFile, oneLine, plural, recordSteps, writeDemoFolder } from "@core/demos"
import { Recorder } from "@core/env-web"
import type { RecordedStep } from "@core/env-web"
import { defaultSecretEnv, SecretEnvName } from "@core/events"
import type { Action } from "@core/events"
import { CliError, UsageError } from "../Cli.ts"
import { DemoNotWritten, RecorderFailed, StepsNotPlayed } from "@core/demos"
import type { Failure } from "../Failures.ts"
import { packTarget } from "@core/apps"
import { bundledTarget } from "@core/sites/run"
import { ALLOW_SECRET_FLAG, allowSecretFlags } from "../PackSecrets.ts"
import type { Command } from "../Cli.ts"

const say = (line: string) => console.error(`record: ${line}`)

const commandsHelp = "done | infeasible | answer <text> | undo (drop the last step) | quit (discard)"

/** One line per step, as the person would say it. */
export const describeAction = (a: Action): string => {
  const on = "target" in a && a.target !== null ? ` ${a.target.role ?? "?"} ${JSON.stringify(a.target.name ?? "")}` : ""
  switch (a.kind) {
    case "type":
      return `type${on} ${a.secretEnv === undefined ? JSON.stringify(a.text) : `$${a.secretEnv}`}${a.submit === true ? " + Enter" : ""}`
    case "select":
      return `select${on} ${JSON.stringify(a.value)}`
    case "navigate":
      return `navigate ${a.url}`
    case "key":
      return `key ${oneLine(a.key, 120)}`
    case "scroll":
      return `scroll ${a.direction}${on}`
    case "open_app":
      return `open_app ${oneLine(a.app, 120)}`
    case "wait":
      return `wait ${a.ms} ms`
    case "answer":
      return `answer ${JSON.stringify(a.text)}`
    case "status":
      return `status ${a.status}`
    default:
      return `${a.kind}${on}`
  }
}

/** The person's commands from stdin, one per line; null at the end of stdin. */
const stdinLines = Effect.gen(function* () {
  const lines = yield* Queue.unbounded<string | null>()
  const rl = yield* Effect.acquireRelease(
    Effect.sync(() => createInterface({ input: process.stdin, terminal: false })),
    (rl) => Effect.sync(() => rl.close())
  )
  rl.on("line", (line) => Queue.offerUnsafe(lines, line))
  rl.on("close", () => Queue.offerUnsafe(lines, null))
  return lines
})

const stamp = Effect.map(DateTime.now, (now) => DateTime.formatIso(now).replace(/[-:]|\.\d+Z$/g, ""))

export const record: Command<Failure> = {
  name: "record",
  summary:
    "record a person's demonstration of a task instance in a headed Chromium as a demo folder (needs a display: on a desktop or under xvfb-run -a); --from plays a step file headless instead",
  flags: {
    task: { kind: "string", description: "the suite instance to demonstrate (ids: bun core tasks list), or a task of --app" },
    app: { kind: "string", description: "an app pack folder (docs/app-packs.md): the task is the pack's, played on an instance of it" },
    site: { kind: "string", description: "its site (optional; must match the task's)" },
    out: { kind: "string", description: "the demo folder (default demos/<suite>/<task>/)" },
    from: { kind: "string", description: 'play this step file (docs/demos.md, "Step files") headless instead of recording a person' },
    "demo-id": { kind: "string", description: "the demo id (default <task>-rec-<UTC time>, with --from <task>-steps-<UTC time>)" },
    force: { kind: "boolean", description: "overwrite an existing demo.json in the folder" },
    "no-judge": {
      kind: "boolean",
      description: "with --app --from: write the demo without asking the pack's evaluate whether it does the task"
    },
    json: { kind: "boolean", description: "print one JSON object { demo, steps, demoId, taskId } instead of the path" },
    "secret-env": {
      kind: "string",
      description: `the environment variable a typed password is recorded as, never its text (default ${defaultSecretEnv}); set it to the password so the demo replays`
    },
    "cdp-port": { kind: "number", description: "advanced: also serve DevTools on this port (how tests drive the browser)" },
    ...allowSecretFlags
  },
  run: (args) =>
    Effect.gen(function* () {
      if (args.positionals.length > 0)
        return yield* new UsageError({ message: `record takes no positional arguments (got '${args.positionals[0]}'); use --task` })
      const taskId = args.flags.task as string | undefined
      if (taskId === undefined)
        return yield* new UsageError({ message: "record needs --task <instance id>; list the ids with `bun core tasks list`" })
      const appDir = args.flags.app as string | undefined
      if (appDir !== undefined && args.flags.site !== undefined)
        return yield* new UsageError({ message: "--site names a bundled site; a pack's task is on the pack" })
      const target =
        appDir === undefined
          ? yield* bundledTarget(taskId, args.flags.site as string | undefined)
          : yield* packTarget(appDir, taskId, { flags: args.flags, granted: args.lists?.[ALLOW_SECRET_FLAG] ?? [] })
      const from = args.flags.from as string | undefined
      if (args.flags["no-judge"] === true && (appDir === undefined || from === undefined))
        return yield* new UsageError({ message: "--no-judge is for a step file played on a pack (--app with --from)" })
      if (from === undefined && target.platform !== "web") {
        return yield* new UsageError({
          message: `${target.taskId} is on ${target.platform}: a person records in a browser window; play a step file instead (--from steps.json)`
        })
      }
      const demoId =
        (args.flags["demo-id"] as string | undefined) ?? `${target.taskId}-${from === undefined ? "rec" : "steps"}-${yield* stamp}`
      if (!/^[A-Za-z0-9_-]+$/.test(demoId))
        return yield* new UsageError({ message: `--demo-id must be letters, digits, '-' or '_', got '${demoId}'` })
      const secretEnv = (args.flags["secret-env"] as string | undefined) ?? defaultSecretEnv
      if (!Schema.is(SecretEnvName)(secretEnv))
        return yield* new UsageError({
          message: `--secret-env must name an environment variable (letters, digits, '_', not starting with a digit), got '${secretEnv}'`
        })
      const port = args.flags["cdp-port"] as number | undefined
      if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535))
        return yield* new UsageError({ message: `--cdp-port must be an integer in 1..65535, got ${port}` })
      if (port !== undefined && from !== undefined)
        return yield* new UsageError({ message: "--cdp-port is for a person's recording; --from plays headless" })
      const out = (args.flags.out as string | undefined) ?? target.defaultOut
      if (existsSync(join(out, "demo.json")) && args.flags.force !== true) {
        return yield* new CliError({
          message: `${join(out, "demo.json")} already exists; pass --force to overwrite it or --out another folder`
        })
      }
      const report = (written: { readonly file: string; readonly steps: number }) => {
        say(`wrote ${plural(written.steps, "step")}; ingest with: bun core ingest ${out}`)
        if (args.flags.json === true)
          console.log(JSON.stringify({ demo: written.file, steps: written.steps, demoId, taskId: target.taskId }))
        else console.log(written.file)
      }
      if (from !== undefined) {
        const file = yield* loadStepFile(from)
        say(`${target.label}: playing ${from}`)
        const written = yield* Effect.gen(function* () {
          const opened = yield* target.open
          return yield* recordSteps({
            task: opened.task,
            steps: file.steps,
            out,
            demoId,
            tasks: target.tasks,
            secretEnvs: [secretEnv],
            platform: target.platform,
            ...(opened.readSecret === undefined ? {} : { readSecret: opened.readSecret }),
            ...(opened.environment === undefined ? {} : { environment: opened.environment }),
            ...(opened.judge === undefined || args.flags["no-judge"] === true
              ? {}
              : { accept: (steps) => opened.judge!(steps.map((s) => s.action)) }),
            // An Android screen has no URL: the app in front says where the step went.
            onStep: (s, i) =>
              say(`step ${i}: ${describeAction(s.action)}  (${s.urlBefore ?? s.appBefore ?? "?"} → ${s.urlAfter ?? s.appAfter ?? "?"})`)
          })
        }).pipe(
          Effect.scoped,
          Effect.catchTag("StepPlayError", (e) => Effect.fail(new StepsNotPlayed({ file: from, reason: e.message })))
        )
        return report(written)
      }
      if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
        return yield* new CliError({
          message:
            "no display for the browser window (DISPLAY is not set): run on a desktop, or under a virtual one: xvfb-run -a bun core record …"
        })
      }

      const written = yield* Effect.gen(function* () {
        const opened = yield* target.open
        // Observations go to a scratch blob store first: only a finished recording is copied out of it.
        const scratch = yield* Effect.acquireRelease(
          Effect.sync(() => mkdtempSync(join(tmpdir(), "core-record-"))),
          (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
        )
        const blobs = DirectoryBlobStore.layer({ dir: scratch })
        say(target.label)
        say(`task: ${target.instruction}`)
        const recording = yield* Recorder.open({
          startUrl: opened.startUrl,
          ...(opened.task.hashRouting === true ? { hashRouting: true } : {}),
          ...(opened.task.prelude === undefined ? {} : { prelude: opened.task.prelude }),
          secretEnv,
          onWarning: say,
          ...(port === undefined ? {} : { cdpPort: port }),
          onStep: (s: RecordedStep, i) => say(`step ${i}: ${describeAction(s.action)}  (${s.urlBefore ?? "?"} → ${s.urlAfter ?? "?"})`)
        }).pipe(
          Effect.provide(blobs),
          Effect.mapError((e) => new RecorderFailed({ doing: "start", reason: e.reason }))
        )
        const lines = yield* stdinLines
        say("do the task in the browser window: each click, committed text field, choice in a list and Back is a step")
        say(`then type one of these here and press Enter: ${commandsHelp}`)

        const commands = Effect.gen(function* () {
          for (;;) {
            const line = yield* Queue.take(lines)
            if (line === null)
              return yield* new CliError({ message: "stdin ended before done/infeasible/answer: recording discarded, nothing written" })
            const word = line.trim().split(/\s+/)[0] ?? ""
            // The answer as typed, inner spacing kept.
            const text = line.trim().slice(word.length).trim()
            if (word === "done") return yield* recording.finish({ kind: "status", status: "complete" })
            if (word === "infeasible") return yield* recording.finish({ kind: "status", status: "infeasible" })
            if (word === "answer" && text !== "") return yield* recording.finish({ kind: "answer", text })
            if (word === "quit") return yield* new CliError({ message: "recording discarded (quit): nothing written" })
            if (word === "undo") {
              const dropped = yield* recording.undo
              say(dropped === null ? "nothing to undo" : `undone: ${describeAction(dropped.action)} (the page stays as it is)`)
            } else if (word === "answer") say("answer needs the answer: answer <text>")
            else if (word !== "") say(`unknown command '${word}': ${commandsHelp}`)
          }
        })
        const windowClosed = recording.closed.pipe(
          Effect.andThen(Effect.fail(new CliError({ message: "the browser window was closed: recording discarded, nothing written" })))
        )
        const steps = yield* Effect.raceFirst(
          commands.pipe(Effect.catchTag("InfraError", (e) => Effect.fail(new RecorderFailed({ doing: "record", reason: e.reason })))),
          windowClosed
        )
        say(`step ${steps.length}: ${describeAction(steps.at(-1)!.action)}`)
        const file = yield* writeDemoFolder(steps, out, {
          demoId,
          taskId: target.taskId,
          recordedWith: "recorder",
          initial: recording.initial
        }).pipe(
          Effect.provide(blobs),
          Effect.mapError((e) => new DemoNotWritten({ out, reason: e.message }))
        )
        // What ingest will read: a recording that does not load is a bug here, not the person's.
        yield* loadDemo(file, { tasks: target.tasks })
        return { file, steps: steps.length }
      }).pipe(Effect.scoped)

      report(written)
    })
}
