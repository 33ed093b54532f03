/**
 * Running a pack's commands: argv arrays spawned without a shell (Argv.ts says why), with
 * the pack's folder as working directory, stdin closed, in a new process group, and with
 * a minimal environment — a pack is third-party code and must not see the caller's model
 * keys, tokens or passwords. Only PATH, HOME, LANG and TMPDIR pass, plus the instance tag
 * that lets `stopInstance` find every process the pack left behind (Processes.ts).
 */
import type { Subprocess } from "bun"
import { accessSync, constants, statSync } from "node:fs"
import { resolve } from "node:path"
import { oneLine } from "@core/demos"
import { endProcesses, TAG_VARIABLE } from "./Processes.ts"

const PASSED = ["PATH", "HOME", "LANG", "TMPDIR"] as const
const FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin"

/** The whole environment of a pack process. */
export const packEnv = (tag: string): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const name of PASSED) {
    const value = process.env[name]
    if (value !== undefined) env[name] = value
  }
  env.PATH ??= FALLBACK_PATH
  env[TAG_VARIABLE] = tag
  return env
}

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/** The program's absolute path: with a `/`, relative to the pack's folder; else from PATH. */
export const resolveProgram = (program: string, cwd: string, path: string): string | null => {
  if (program.includes("/")) {
    const full = resolve(cwd, program)
    return executable(full) ? full : null
  }
  return Bun.which(program, { PATH: path, cwd })
}

/** The last line a process wrote to stdout or stderr, for one-line failures. */
export class OutputTail {
  private last = ""
  private readonly partial = new Map<string, string>()

  /** Feeds a chunk of one stream; calls `onLine` with each complete, trimmed line. */
  feed(stream: string, chunk: string, onLine?: (line: string) => void): void {
    const lines = ((this.partial.get(stream) ?? "") + chunk).split(/\r?\n/)
    // A line without end is kept short: an app that prints no newline cannot grow us without bound.
    const rest = (lines.pop() ?? "").slice(-4096)
    this.partial.set(stream, rest)
    for (const raw of lines) this.line(raw, onLine)
    // An unfinished line is the latest output too (a prompt, a message cut off by a crash).
    if (rest.trim() !== "") this.last = rest.trim()
  }

  /** The end of a stream: its unfinished line counts as a line. */
  end(stream: string, onLine?: (line: string) => void): void {
    const rest = this.partial.get(stream) ?? ""
    this.partial.delete(stream)
    if (rest !== "") this.line(rest, onLine)
  }

  private line(raw: string, onLine?: (line: string) => void): void {
    const line = raw.trim()
    if (line === "") return
    this.last = line
    onLine?.(line)
  }

  /** The latest non-empty line, as one line of at most 200 characters; `(none)` before any. */
  get text(): string {
    return this.last === "" ? "(none)" : oneLine(this.last, 200)
  }
}

export interface Spawned {
  readonly proc: Subprocess<"ignore", "pipe", "pipe">
  readonly output: OutputTail
  /** Set once the process has exited. */
  exit: { readonly code: number | null; readonly signal: string | null } | null
  /** Resolves when both output streams have ended (a daemon holding them may keep them open). */
  readonly drained: Promise<void>
}

export type SpawnResult = { readonly ok: true; readonly spawned: Spawned } | { readonly ok: false; readonly problem: string }

const drain = async (stream: ReadableStream<Uint8Array>, name: string, output: OutputTail, onLine?: (line: string) => void) => {
  const decoder = new TextDecoder()
  try {
    for await (const bytes of stream) output.feed(name, decoder.decode(bytes, { stream: true }), onLine)
  } catch {
    // The stream broke: what was read is what there is.
  }
  output.end(name, onLine)
}

/**
 * Spawns `argv` (placeholders already filled) for the command `kind` of a pack. Output is
 * read for the whole life of the process, so a chatty app never blocks on a full pipe.
 */
export const spawnCommand = (
  kind: string,
  argv: ReadonlyArray<string>,
  options: {
    readonly cwd: string
    readonly tag: string
    readonly onStdoutLine?: (line: string) => void
  }
): SpawnResult => {
  const env = packEnv(options.tag)
  const program = resolveProgram(argv[0]!, options.cwd, env.PATH!)
  if (program === null) return { ok: false, problem: `${kind}: command not found: ${oneLine(argv[0]!, 200)}` }
  let proc: Subprocess<"ignore", "pipe", "pipe">
  try {
    proc = Bun.spawn([program, ...argv.slice(1)], {
      cwd: options.cwd,
      env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      detached: true
    })
  } catch (e) {
    return {
      ok: false,
      problem: `${kind}: cannot run ${oneLine(argv[0]!, 200)}: ${oneLine(e instanceof Error ? e.message : String(e), 200)}`
    }
  }
  const output = new OutputTail()
  const spawned: Spawned = {
    proc,
    output,
    exit: null,
    drained: Promise.all([drain(proc.stdout, "stdout", output, options.onStdoutLine), drain(proc.stderr, "stderr", output)]).then(
      () => undefined
    )
  }
  void proc.exited.then(() => {
    spawned.exit = { code: proc.exitCode, signal: proc.signalCode === null ? null : String(proc.signalCode) }
  })
  return { ok: true, spawned }
}

/** How a command ended, in words: `exited with code 3`, `was killed by SIGKILL`. */
export const describeExit = (exit: { readonly code: number | null; readonly signal: string | null }): string =>
  exit.code !== null ? `exited with code ${exit.code}` : `was killed by ${exit.signal ?? "a signal"}`

export interface Finished {
  readonly code: number | null
  readonly signal: string | null
  readonly timedOut: boolean
  readonly last: string
}

/**
 * Runs a command to its end within `timeoutMs`; past it, the command's process group is
 * ended and `timedOut` is set. What it left running in the background is not touched here
 * (a reset may restart the app): the instance's stop ends it through the tag.
 */
export const runCommand = async (
  kind: string,
  argv: ReadonlyArray<string>,
  options: {
    readonly cwd: string
    readonly tag: string
    readonly timeoutMs: number
  }
): Promise<Finished | { readonly problem: string }> => {
  const started = spawnCommand(kind, argv, options)
  if (!started.ok) return { problem: started.problem }
  const { proc, output } = started.spawned
  let timer: ReturnType<typeof setTimeout> | undefined
  const timedOut = await Promise.race([
    proc.exited.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), options.timeoutMs)))
  ])
  clearTimeout(timer)
  if (timedOut) await endProcesses({ group: proc.pid }, 500)
  await proc.exited
  // The last words may still be in the pipe; a background child holding it open is not waited for.
  await Promise.race([started.spawned.drained, new Promise((resolve) => setTimeout(resolve, 200))])
  return { code: proc.exitCode, signal: proc.signalCode === null ? null : String(proc.signalCode), timedOut, last: output.text }
}
