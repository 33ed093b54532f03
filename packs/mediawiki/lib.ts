/**
 * Shared helpers of the mediawiki pack: where things live, the instance-dir guard, the
 * process scan that stop/reset use, and small waits.
 *
 * Instance dir layout (made by start.ts from the template, template.ts):
 *   <tmpdir>/core-mw-XXXXXX/
 *     LocalSettings.php      the installer's settings, paths relative to this dir (__DIR__)
 *     data/wiki.sqlite …     the wiki's SQLite databases (pages, users, caches, job queue)
 *     cache/                 MediaWiki's file cache directory
 *     .core/instance.json    { port, supervisorPid, tag }
 *     .core/server.log       PHP's built-in server: one line per request (evaluate reads it)
 *
 * @example
 * const checked = checkInstance(process.argv[2])   // { dir } or { error }
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, dirname, join, resolve } from "node:path"

export const PACK_DIR = import.meta.dir
export const SEED_DIR = join(PACK_DIR, "seed")
export const INSTANCE_PREFIX = "core-mw-"
export const TEMPLATE_PREFIX = "core-mwtpl-"
/** Debian's `mediawiki` package installs the code here; the pack serves it unchanged. */
export const MEDIAWIKI_DIR = "/usr/share/mediawiki"

/** The wiki's account that the pack's auth.steps.json logs in as (a throwaway local wiki). */
export const WIKI_USER = "Stationmaster"
export const WIKI_PASSWORD = "larkspur-valley-1898"
export const WIKI_NAME = "Larkspur Valley Railway"

/** What the pack needs from Debian, and whether it is there. */
export const missingPackages = (): ReadonlyArray<string> => {
  const missing: Array<string> = []
  if (!existsSync(join(MEDIAWIKI_DIR, "index.php"))) missing.push("mediawiki")
  if (!Bun.which("php")) missing.push("php-cli")
  const exts = phpExtensions()
  for (const [ext, pkg] of [
    ["pdo_sqlite", "php-sqlite3"],
    ["intl", "php-intl"],
    ["mbstring", "php-mbstring"],
    ["xml", "php-xml"]
  ] as const) {
    if (!exts.has(ext) && !missing.includes(pkg)) missing.push(pkg)
  }
  return missing
}

const phpExtensions = (): Set<string> => {
  const php = Bun.which("php")
  if (!php) return new Set()
  const out = Bun.spawnSync([php, "-m"], { stdout: "pipe", stderr: "ignore" })
  return new Set(new TextDecoder().decode(out.stdout).toLowerCase().split(/\s+/))
}

/** The temp root the instances and the template live under (TMPDIR or /tmp), without symlinks. */
export const tempRoot = (): string => realpathSync(tmpdir())

/**
 * The instance dir an argument names, or an error message. Only `<tmp>/core-mw-*` directly
 * under the temp root is accepted, so stop/reset/evaluate can never be aimed at another folder.
 */
export const checkInstance = (arg: string | undefined): { dir: string } | { error: string } => {
  if (!arg) return { error: "missing {instance} argument" }
  const abs = resolve(arg)
  const root = tempRoot()
  let parent: string
  try {
    parent = realpathSync(dirname(abs))
  } catch {
    return { error: `not an instance dir of this pack: ${arg}` }
  }
  const name = basename(abs)
  if (parent !== root || !name.startsWith(INSTANCE_PREFIX) || !/^[A-Za-z0-9_-]+$/.test(name) || name === INSTANCE_PREFIX) {
    return { error: `refusing ${arg}: not under ${join(root, INSTANCE_PREFIX)}*` }
  }
  return { dir: join(root, name) }
}

export interface InstanceMeta {
  readonly port: number
  readonly supervisorPid: number
  readonly tag: string
}

export const metaPath = (dir: string): string => join(dir, ".core", "instance.json")

export const readMeta = (dir: string): InstanceMeta | undefined => {
  try {
    return JSON.parse(readFileSync(metaPath(dir), "utf8")) as InstanceMeta
  } catch {
    return undefined
  }
}

/** The argv of a live process, or undefined if it is gone. */
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
    const argv = cmdline(pid)
    if (argv?.some((a) => a === dir || a.startsWith(`${dir}/`) || a.includes(`=${dir}/`))) out.push(pid)
  }
  return out
}

/** Whether `pid` is this pack's start.ts (so a recycled pid is never signalled). */
export const isSupervisor = (pid: number): boolean =>
  cmdline(pid)?.some((a) => a === join(PACK_DIR, "start.ts") || a === "start.ts") ?? false

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** Polls `url` until it answers 200 or `timeoutMs` passes. */
export const waitForHttp200 = async (url: string, timeoutMs: number, stillAlive: () => boolean = () => true): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (!stillAlive()) return false
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000), redirect: "manual" })
      await res.arrayBuffer().catch(() => undefined)
      if (res.status === 200) return true
    } catch {
      // not listening yet
    }
    await sleep(25)
  }
  return false
}

/** A free loopback port (for the template's warm-up server). */
export const freePort = (): number => {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: () => undefined } })
  const port = s.port
  s.stop(true)
  return port
}

/**
 * PHP's built-in server on `port` serving Debian's MediaWiki with the settings file `conf`.
 * `MW_CONFIG_FILE` is MediaWiki's own way to load settings from outside its install dir.
 * Several workers, so a page's stylesheet and script requests do not queue behind each other;
 * OPcache on, since the CLI server otherwise compiles MediaWiki anew on every request, with
 * its file cache shared by every instance (`<tmpdir>/core-mwopcache`): a new server then
 * loads MediaWiki's compiled code instead of compiling it (first page ~1 s instead of ~3 s).
 */
export const phpServerArgv = (port: number, dir: string): ReadonlyArray<string> => [
  Bun.which("php") ?? "php",
  "-d",
  "opcache.enable_cli=1",
  "-d",
  `opcache.file_cache=${opcacheDir()}`,
  "-d",
  `error_log=${dir}/.core/php-error.log`,
  "-S",
  `127.0.0.1:${port}`,
  "-t",
  MEDIAWIKI_DIR
]

const opcacheDir = (): string => {
  const dir = join(tempRoot(), "core-mwopcache")
  mkdirSync(dir, { recursive: true })
  return dir
}

export const phpServerEnv = (dir: string): Record<string, string> => ({
  ...(process.env as Record<string, string>),
  MW_CONFIG_FILE: join(dir, "LocalSettings.php"),
  PHP_CLI_SERVER_WORKERS: "4"
})

/** Sends `signal` to each pid, ignoring those already gone. */
export const signalAll = (pids: ReadonlyArray<number>, signal: NodeJS.Signals): void => {
  for (const pid of pids) {
    try {
      process.kill(pid, signal)
    } catch {
      // already gone
    }
  }
}

/** PHP processes (the server and its workers) whose argv names `dir`; never a stop.ts naming it too. */
export const phpServing = (dir: string): ReadonlyArray<number> =>
  processesNaming(dir).filter((pid) => /(^|\/)php[0-9.]*$/.test(cmdline(pid)?.[0] ?? ""))

/**
 * Ends PHP's server for `dir` and its workers, which outlive their parent's SIGTERM and are
 * found by the dir their argv names. SIGKILL at once: the wiki's state is in SQLite, whose
 * journal makes an interrupted write harmless, and nothing else is held in memory.
 */
export const killServers = async (dir: string): Promise<void> => {
  for (let i = 0; i < 40; i++) {
    const pids = phpServing(dir).filter(alive)
    if (pids.length === 0) return
    signalAll(pids, "SIGKILL")
    await sleep(25)
  }
}

/**
 * Removes this pack's instance dirs left behind when a whole process group was SIGKILLed
 * without stop.ts: `core-mw-*` dirs older than `minAgeMs` whose supervisor is gone and that
 * no process names. Best effort; `keep` (the caller's own dir) is never touched.
 */
export const removeStaleInstances = (keep: string, minAgeMs = 10 * 60_000): void => {
  try {
    const root = tempRoot()
    const now = Date.now()
    for (const name of readdirSync(root)) {
      if (!name.startsWith(INSTANCE_PREFIX) || name === INSTANCE_PREFIX || !/^[A-Za-z0-9_-]+$/.test(name)) continue
      const dir = join(root, name)
      if (dir === keep) continue
      const st = statSync(dir, { throwIfNoEntry: false })
      if (!st?.isDirectory() || now - st.mtimeMs < minAgeMs) continue
      const meta = readMeta(dir)
      if (meta && meta.supervisorPid > 0 && alive(meta.supervisorPid) && isSupervisor(meta.supervisorPid)) continue
      if (processesNaming(dir).some(alive)) continue
      rmSync(dir, { recursive: true, force: true })
    }
  } catch {
    // best effort
  }
}
