/**
 * The installed wiki every instance copies: MediaWiki's CLI installer run once on SQLite,
 * the seed pages imported, its caches warmed. Built on first use into
 * `<tmpdir>/core-mwtpl-<hash>` (the hash covers the seed and this file, so a changed seed
 * builds a new template), and never changed afterwards.
 *
 * Two starts at once (pool 2) must not both build it: the builder holds
 * `<template>.lock` (created exclusively, holding its pid); the others wait for the template
 * to appear, or take the lock over when its holder died. Each build happens in a dir of its
 * own and is renamed into place, so even two builders (a lock taken over twice) leave one
 * whole template.
 *
 * `bun template.ts` builds it ahead of time and prints its path.
 *
 * @example
 * const template = await ensureTemplate()   // /tmp/core-mwtpl-3f2a…
 */
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import {
  MEDIAWIKI_DIR,
  SEED_DIR,
  TEMPLATE_PREFIX,
  WIKI_NAME,
  WIKI_PASSWORD,
  WIKI_USER,
  alive,
  freePort,
  phpServerArgv,
  phpServerEnv,
  killServers,
  sleep,
  tempRoot,
  waitForHttp200
} from "./lib.ts"

const PAGES_DIR = join(SEED_DIR, "pages")
const WAIT_MS = 300_000

/** The seed's pages and settings and this builder, hashed: the template's identity. */
const templateHash = (): string => {
  const h = createHash("sha256")
  h.update(readFileSync(import.meta.path))
  h.update(readFileSync(join(SEED_DIR, "LocalSettings.pack.php")))
  for (const name of readdirSync(PAGES_DIR).sort()) {
    h.update(name)
    h.update(readFileSync(join(PAGES_DIR, name)))
  }
  return h.digest("hex").slice(0, 16)
}

export const templatePath = (): string => join(tempRoot(), `${TEMPLATE_PREFIX}${templateHash()}`)

const ready = (dir: string): boolean => existsSync(join(dir, "LocalSettings.php")) && existsSync(join(dir, "data", "wiki.sqlite"))

/** The template dir, built first if no one has built it yet. */
export const ensureTemplate = async (): Promise<string> => {
  const final = templatePath()
  const lock = `${final}.lock`
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    if (ready(final)) return final
    if (takeLock(lock)) {
      try {
        if (!ready(final)) await build(final)
      } finally {
        rmSync(lock, { force: true })
      }
      return final
    }
    if (Date.now() > deadline) throw new Error(`the template ${final} did not appear within ${WAIT_MS} ms (lock ${lock})`)
    await sleep(200)
  }
}

/** Creates the lock, or takes it over from a holder that died; false while a live one holds it. */
const takeLock = (lock: string): boolean => {
  try {
    writeFileSync(lock, String(process.pid), { flag: "wx" })
    return true
  } catch {
    let holder = 0
    try {
      holder = Number(readFileSync(lock, "utf8"))
    } catch {
      return false // released meanwhile: the next round sees the template or takes the lock
    }
    const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0)
    if ((holder > 0 && alive(holder)) || (holder === 0 && age < 2000)) return false
    rmSync(lock, { force: true })
    return false
  }
}

const php = (args: ReadonlyArray<string>, conf: string | undefined, what: string): void => {
  const env: Record<string, string> = { ...(process.env as Record<string, string>) }
  if (conf) env.MW_CONFIG_FILE = conf
  const r = Bun.spawnSync([Bun.which("php") ?? "php", ...args], { env, stdout: "pipe", stderr: "pipe", stdin: "ignore" })
  if (r.exitCode !== 0) {
    const out = `${new TextDecoder().decode(r.stdout)}${new TextDecoder().decode(r.stderr)}`.trim().split("\n").slice(-3).join(" | ")
    throw new Error(`${what} failed (exit ${r.exitCode}): ${out.slice(0, 300)}`)
  }
}

/** Build dirs of builders that died (a start killed while it built) are only in the way. */
const removeDeadBuilds = (final: string): void => {
  const root = tempRoot()
  const prefix = `${final.slice(root.length + 1)}.build-`
  for (const name of readdirSync(root)) {
    const pid = name.startsWith(prefix) ? Number(name.slice(prefix.length)) : 0
    if (pid > 0 && !alive(pid)) rmSync(join(root, name), { recursive: true, force: true })
  }
}

const build = async (final: string): Promise<void> => {
  removeDeadBuilds(final)
  const dir = `${final}.build-${process.pid}`
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(join(dir, "data"), { recursive: true })
  mkdirSync(join(dir, "cache"))
  mkdirSync(join(dir, ".core"))
  try {
    php(
      [
        join(MEDIAWIKI_DIR, "maintenance", "install.php"),
        "--dbtype=sqlite",
        `--dbpath=${join(dir, "data")}`,
        "--dbname=wiki",
        "--server=http://127.0.0.1",
        "--scriptpath=",
        "--lang=en",
        `--pass=${WIKI_PASSWORD}`,
        `--confpath=${dir}`,
        "--skins=Vector,MonoBook",
        WIKI_NAME,
        WIKI_USER
      ],
      undefined,
      "MediaWiki's installer"
    )
    const conf = join(dir, "LocalSettings.php")
    // Paths relative to the settings file and the server from the request: a copy works anywhere, on any port.
    const installed = readFileSync(conf, "utf8")
      .replace(/^\$wgSQLiteDataDir = .*$/m, `$wgSQLiteDataDir = __DIR__ . "/data";`)
      .replace(/^\$wgServer = .*$/m, "$wgServer = WebRequest::detectServer();")
    const extra = readFileSync(join(SEED_DIR, "LocalSettings.pack.php"), "utf8").replace(/^<\?php\s*/, "")
    writeFileSync(conf, `${installed}\n${extra}`)
    const pages = readdirSync(PAGES_DIR)
      .filter((n) => n.endsWith(".wiki"))
      .sort()
      .map((n) => join(PAGES_DIR, n))
    php(
      [join(MEDIAWIKI_DIR, "maintenance", "importTextFiles.php"), "--user", WIKI_USER, "--summary", "Seed page", "--overwrite", ...pages],
      conf,
      "importing the seed pages"
    )
    php([join(MEDIAWIKI_DIR, "maintenance", "runJobs.php")], conf, "running the wiki's jobs")
    await warmUp(dir)
    rmSync(join(dir, ".core"), { recursive: true, force: true })
    try {
      renameSync(dir, final)
    } catch (e) {
      if (!ready(final)) throw e // another builder won the rename: its template is as good
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Serves the template once and asks for a few pages and their styles and scripts, so that
 * the localisation cache and ResourceLoader's minified modules are in the template's cache
 * database: every copy then answers its first page in a fraction of a second.
 */
const warmUp = async (dir: string): Promise<void> => {
  const port = freePort()
  const server = Bun.spawn([...phpServerArgv(port, dir)], { env: phpServerEnv(dir), stdout: "ignore", stderr: "ignore", stdin: "ignore" })
  try {
    const base = `http://127.0.0.1:${port}`
    if (!(await waitForHttp200(`${base}/index.php/Main_Page`, 60_000)))
      throw new Error("the template's wiki did not answer while warming up")
    for (const path of ["/index.php/Main_Page", "/index.php/Special:UserLogin", "/index.php?title=Tea_Room&action=edit"]) {
      const html = await (await fetch(`${base}${path}`)).text()
      const assets = [...html.matchAll(/"(\/load\.php\?[^"]+)"/g)].map((m) => m[1]!.replaceAll("&amp;", "&"))
      await Promise.all(assets.map((a) => fetch(`${base}${a}`).then((r) => r.arrayBuffer())))
    }
  } finally {
    server.kill("SIGTERM")
    await server.exited
    await killServers(dir)
  }
}

if (import.meta.main) {
  const t0 = performance.now()
  const dir = await ensureTemplate()
  console.log(`${dir} (${Math.round(performance.now() - t0)} ms)`)
}
