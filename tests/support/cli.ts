/**
 * Running the real `bun core` in a child process, as a user would, with an environment
 * free of the caller's CORE settings so results do not depend on the shell.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export const REPO = join(import.meta.dir, "..", "..")

const emptyConfigDir = mkdtempSync(join(tmpdir(), "core-cli-env-"))
const emptyConfig = join(emptyConfigDir, "empty.json")
writeFileSync(emptyConfig, "{}")

export const cleanEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("CORE_") && k !== "NATS_URL" && k !== "DATABASE_URL") env[k] = v
  }
  // A core.config.json someone left at the repository root must not change what tests see.
  env.CORE_CONFIG = emptyConfig
  return env
}

export interface CliResult {
  readonly stdout: string
  readonly stderr: string
  readonly code: number
}

export const core = async (args: ReadonlyArray<string>, extraEnv: Record<string, string> = {}): Promise<CliResult> => {
  const proc = Bun.spawn(["bun", "apps/cli/main.ts", ...args], {
    cwd: REPO,
    env: { ...cleanEnv(), ...extraEnv },
    stdout: "pipe",
    stderr: "pipe"
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, code }
}

/** Starts `bun core …` and returns the process, for commands that run until stopped. */
export const spawnCore = (args: ReadonlyArray<string>, extraEnv: Record<string, string> = {}) =>
  Bun.spawn(["bun", "apps/cli/main.ts", ...args], {
    cwd: REPO,
    env: { ...cleanEnv(), ...extraEnv },
    stdout: "pipe",
    stderr: "pipe"
  })

/** The one-line error contract: exactly one `error:` line, no stack trace. */
export const expectOneLineError = (r: CliResult, expect: (v: unknown) => any) => {
  expect(r.code).not.toBe(0)
  const lines = r.stderr.split("\n").filter((l) => l.startsWith("error:"))
  expect(lines.length).toBe(1)
  expect(r.stderr).not.toMatch(/^\s+at /m)
}

/** `run --app` as the packs' CI cases run it: the given tasks, 1 round, 1 sample, 1 explorer episode, JSON on stdout. */
export const smallRunArgs = (pack: string, tasks: ReadonlyArray<string>, flags: ReadonlyArray<string>): Array<string> => [
  "run",
  "--app",
  pack,
  "--tasks",
  tasks.join(","),
  "--rounds",
  "1",
  "--samples",
  "1",
  "--explore-per-task",
  "1",
  "--json",
  ...flags
]
