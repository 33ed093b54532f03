/**
 * Shared helpers of the actual pack: where things live, the instance-dir guard, and the
 * process checks start/stop use.
 *
 * Instance dir layout (made by start.ts from seed/):
 *   <tmpdir>/core-actual-XXXXXX/
 *     config.json                   the sync server's config (port, data folders), written per instance
 *     server-files/account.sqlite   the server's accounts, password and sessions
 *     user-files/                   the budget file (`file-<id>.blob`) and its sync messages (`group-<id>.sqlite`)
 *     .core/instance.json           { port, supervisorPid, serverPid }
 *     .core/server.log              the sync server's own output
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, dirname, join, resolve } from "node:path"

export const PACK_DIR = import.meta.dir
export const SEED_DIR = join(PACK_DIR, "seed")
export const INSTANCE_PREFIX = "core-actual-"
/** The seed server's password: a throwaway local one, also typed by auth.steps.json. */
export const PASSWORD = "core-actual"
export const BUDGET_NAME = "Harbor Household"
export const SERVER_JS = join(PACK_DIR, "node_modules/@actual-app/sync-server/build/bin/actual-server.js")

/** Whether the pack's npm install (with its native better-sqlite3 build) is there. */
export const installed = (): boolean =>
  existsSync(SERVER_JS) && existsSync(join(PACK_DIR, "node_modules/better-sqlite3/build/Release/better_sqlite3.node"))

export const tempRoot = (): string => realpathSync(tmpdir())

/** The instance dir an argument names, or an error: only `<tmp>/core-actual-*` is accepted. */
export const checkInstance = (arg: string | undefined): { dir: string } | { error: string } => {
  if (!arg) return { error: "missing {instance} argument" }
  const abs = resolve(arg)
  let parent: string
  try {
    parent = realpathSync(dirname(abs))
  } catch {
    return { error: `not an instance dir of this pack: ${arg}` }
  }
  const name = basename(abs)
  if (parent !== tempRoot() || !name.startsWith(INSTANCE_PREFIX) || name === INSTANCE_PREFIX || !/^[A-Za-z0-9_-]+$/.test(name)) {
    return { error: `refusing ${arg}: not under ${join(tempRoot(), INSTANCE_PREFIX)}*` }
  }
  return { dir: join(tempRoot(), name) }
}

export interface InstanceMeta {
  readonly port: number
  readonly supervisorPid: number
  readonly serverPid: number
}

export const metaPath = (dir: string): string => join(dir, ".core", "instance.json")

export const readMeta = (dir: string): InstanceMeta | undefined => {
  try {
    return JSON.parse(readFileSync(metaPath(dir), "utf8")) as InstanceMeta
  } catch {
    return undefined
  }
}

export const cmdline = (pid: number): ReadonlyArray<string> | undefined => {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, "utf8")
    return raw.length === 0 ? undefined : raw.replace(/\0$/, "").split("\0")
  } catch {
    return undefined
  }
}

/** Pids (other than this process) whose argv names `dir` or a path inside it. */
export const processesNaming = (dir: string): ReadonlyArray<number> => {
  const out: Array<number> = []
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const pid = Number(entry)
    if (pid === process.pid) continue
    if (cmdline(pid)?.some((a) => a === dir || a.startsWith(`${dir}/`))) out.push(pid)
  }
  return out
}

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}

/** Is `pid` this pack's start.ts (so signalling it is safe)? */
export const isSupervisor = (pid: number): boolean =>
  !!cmdline(pid)?.some((a) => a === join(PACK_DIR, "start.ts") || a === "start.ts" || a.endsWith("/actual/start.ts"))

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** Polls `url` until it answers 200 or `timeoutMs` passes. */
export const waitForHttp200 = async (url: string, timeoutMs: number, stillAlive: () => boolean = () => true): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (!stillAlive()) return false
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) })
      await res.arrayBuffer().catch(() => undefined)
      if (res.status === 200) return true
    } catch {
      // not listening yet
    }
    await sleep(25)
  }
  return false
}
