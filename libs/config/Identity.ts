/**
 * What a run was made with, for `RunStarted`: the code version and the versions of the
 * tools it talks to. A tool that is absent or does not answer is `null`, never an error —
 * a run without Chromium is still a run, and the record should say so.
 */
import { Effect } from "effect"
import type { LoadedConfig } from "./Config.ts"
import { forRecording } from "./Recording.ts"
import type { RecordedConfig } from "./Recording.ts"

export interface CommandOutput {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs a program to completion with a deadline; null when it cannot be started (absent,
 * not executable). The deadline matters: a broken Chromium wrapper can hang.
 */
export const runProgram = (
  cmd: ReadonlyArray<string>,
  options: { cwd?: string; timeoutMs?: number } = {}
): Effect.Effect<CommandOutput | null> =>
  Effect.promise(async () => {
    try {
      const proc = Bun.spawn([...cmd], {
        cwd: options.cwd,
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
        timeout: options.timeoutMs ?? 10_000,
        killSignal: "SIGKILL"
      })
      const [stdout, stderr, exitCode] = await Promise.all([
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
        proc.exited
      ])
      return { exitCode, stdout, stderr }
    } catch {
      return null
    }
  })

/** The first non-empty line a program prints for `--version`, or null when it is absent or fails. */
export const programVersion = (path: string, args: ReadonlyArray<string> = ["--version"]): Effect.Effect<string | null> =>
  Effect.map(runProgram([path, ...args]), (out) => {
    if (out === null || out.exitCode !== 0) return null
    const line = `${out.stdout}\n${out.stderr}`
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l !== "")
    return line ?? null
  })

export interface CodeVersion {
  /** HEAD's commit, or null outside a git repository (or before the first commit). */
  readonly commit: string | null
  /** Uncommitted changes to tracked or untracked, non-ignored files. */
  readonly dirty: boolean
}

export const codeVersion = (root: string = process.cwd()): Effect.Effect<CodeVersion> =>
  Effect.gen(function* () {
    const head = yield* runProgram(["git", "rev-parse", "HEAD"], { cwd: root })
    const commit = head !== null && head.exitCode === 0 ? head.stdout.trim() || null : null
    if (commit === null) return { commit: null, dirty: false }
    const status = yield* runProgram(["git", "status", "--porcelain"], { cwd: root })
    return { commit, dirty: status !== null && status.exitCode === 0 && status.stdout.trim() !== "" }
  })

export interface ToolVersions {
  readonly bun: string
  readonly chromium: string | null
  readonly chromedriver: string | null
  readonly "nats-server": string | null
  readonly [tool: string]: string | null
}

/** Versions as each tool reports itself (`Chromium 120.0… built on Debian…`); null when absent. */
export const toolVersions = (config: LoadedConfig): Effect.Effect<ToolVersions> =>
  Effect.gen(function* () {
    const natsServer = Bun.which("nats-server")
    const [chromium, chromedriver, nats] = yield* Effect.all(
      [
        programVersion(config.values["chromium.path"]),
        programVersion(config.values["chromedriver.path"]),
        natsServer === null ? Effect.succeed(null) : programVersion(natsServer)
      ],
      { concurrency: "unbounded" }
    )
    return { bun: Bun.version, chromium, chromedriver, "nats-server": nats }
  })

/** Everything `RunStarted` records about the config and the machine, except `command`. */
export interface RunIdentity extends RecordedConfig {
  readonly seed: string
  readonly code: CodeVersion
  readonly tools: ToolVersions
}

export const runIdentity = (
  config: LoadedConfig,
  options: { readonly root?: string; readonly env?: Readonly<Record<string, string | undefined>> } = {}
): Effect.Effect<RunIdentity> =>
  Effect.gen(function* () {
    const [code, tools] = yield* Effect.all([codeVersion(options.root), toolVersions(config)], { concurrency: "unbounded" })
    return { ...forRecording(config, options.env), seed: config.values.seed, code, tools }
  })
