/**
 * Shared helpers of the tiddlywiki pack: where things live, the instance-dir guard, the
 * process scan that stop/reset use, and a reader for a TiddlyWiki wiki folder's tiddler
 * files (`.tid`, `.json`, `<file>` + `<file>.meta`) keyed by the title inside each file.
 *
 * Instance dir layout (made by start.ts):
 *   <tmpdir>/core-tw-XXXXXX/
 *     tiddlywiki.info, tiddlers/…   the wiki folder TiddlyWiki serves (copied from seed/)
 *     .core/instance.json           { port, supervisorPid, serverPid, generation, tag }
 *     .core/server.log              TiddlyWiki's own stdout/stderr
 *
 * @example
 * const wiki = readWiki("/tmp/core-tw-abc123")
 * wiki.get("Generator G2")?.fields.status // "running"
 */
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { basename, dirname, join, resolve } from "node:path"

export const PACK_DIR = import.meta.dir
export const SEED_DIR = join(PACK_DIR, "seed")
export const INSTANCE_PREFIX = "core-tw-"

/** The TiddlyWiki CLI entry (`tiddlywiki.js`), resolved like `import "tiddlywiki"` would from the pack folder. */
export const tiddlywikiJs = (): string => {
  const pkg = createRequire(join(PACK_DIR, "start.ts")).resolve("tiddlywiki/package.json")
  return join(dirname(pkg), "tiddlywiki.js")
}

/** The temp root the instances live under (TMPDIR or /tmp), without symlinks. */
export const tempRoot = (): string => realpathSync(tmpdir())

/**
 * The instance dir an argument names, or an error message. Only `<tmp>/core-tw-*` directly
 * under the temp root is accepted, so stop/reset can never be aimed at another folder.
 */
export const checkInstance = (arg: string | undefined): { dir: string } | { error: string } => {
  if (!arg) return { error: "missing {instance} argument" }
  const abs = resolve(arg)
  const root = tempRoot()
  // The dir may already be gone (stop is idempotent): check the parent's real path and the name.
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
  readonly serverPid: number
  /** Bumped by the supervisor after every completed reset. */
  readonly generation: number
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
    if (argv?.some((a) => a === dir || a.startsWith(dir + "/"))) out.push(pid)
  }
  return out
}

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    // A zombie still answers kill(0); it is dead for our purposes.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return !/^\d+ \(.*\) Z/.test(stat)
  } catch {
    return false
  }
}

/** Is `pid` this pack's start.ts supervisor (so signalling it is safe)? */
export const isSupervisor = (pid: number): boolean => {
  const argv = cmdline(pid)
  return !!argv && argv.some((a) => a === join(PACK_DIR, "start.ts") || a === "start.ts" || a.endsWith("/tiddlywiki/start.ts"))
}

/**
 * Removes `<tmp>/core-tw-*` dirs (other than `keep`) that are older than `minAgeMs`, whose
 * recorded supervisor is not alive and that no process names: what a group killed with
 * SIGKILL, before its stop.ts ran, leaves behind. Best effort, never throws.
 */
export const removeStaleInstances = (keep: string, minAgeMs = 10 * 60_000): void => {
  try {
    const root = tempRoot()
    const now = Date.now()
    const candidates = readdirSync(root)
      .filter((n) => n.startsWith(INSTANCE_PREFIX) && n !== INSTANCE_PREFIX && /^[A-Za-z0-9_-]+$/.test(n))
      .map((n) => join(root, n))
      .filter((d) => {
        if (d === keep) return false
        try {
          const st = statSync(d)
          if (!st.isDirectory() || now - st.mtimeMs < minAgeMs) return false
        } catch {
          return false
        }
        const meta = readMeta(d)
        return !(meta && meta.supervisorPid > 0 && alive(meta.supervisorPid) && isSupervisor(meta.supervisorPid))
      })
    if (candidates.length === 0) return
    for (const d of candidates) {
      if (processesNaming(d).some(alive)) continue
      rmSync(d, { recursive: true, force: true })
    }
  } catch {
    // best effort
  }
}

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

// ---------------------------------------------------------------------------------------
// Reading tiddlers

export interface Tiddler {
  readonly title: string
  /** All fields as strings, `text` included (absent text is ""). */
  readonly fields: Readonly<Record<string, string>>
  readonly text: string
  readonly tags: ReadonlyArray<string>
  /** The file it came from, relative to the tiddlers folder. */
  readonly file: string
}

/** TiddlyWiki's `parseStringArray`: `[[two words]] one three` → ["two words", "one", "three"]. */
export const parseStringArray = (value: string): Array<string> => {
  const out: Array<string> = []
  const re = /(?:^|[^\S\xA0])(?:\[\[(.*?)\]\])(?=[^\S\xA0]|$)|([\S\xA0]+)/gm
  let m: RegExpExecArray | null
  while ((m = re.exec(value))) {
    const item = m[1] ?? m[2]
    if (item !== undefined && !out.includes(item)) out.push(item)
  }
  return out
}

/** A `.tid` file: `name: value` header lines, a blank line, then the text (TiddlyWiki's own split). */
export const parseTid = (content: string): Record<string, string> => {
  const fields: Record<string, string> = {}
  const parts = content.split(/\r?\n\r?\n/m)
  parseFieldBlock(parts[0] ?? "", fields)
  fields.text = parts.length >= 2 ? parts.slice(1).join("\n\n") : ""
  return fields
}

/** TiddlyWiki's `parseFields`: each line `name: value`, name up to the first colon. */
const parseFieldBlock = (block: string, into: Record<string, string>): void => {
  for (const line of block.split(/\r?\n/)) {
    if (line.charAt(0) === "#") continue
    const colon = line.indexOf(":")
    if (colon === -1) continue
    const name = line.slice(0, colon).trim()
    if (name) into[name] = line.slice(colon + 1).trim()
  }
}

const toTiddler = (fields: Record<string, string>, file: string): Tiddler | undefined => {
  const title = fields.title
  if (!title) return undefined
  const text = fields.text ?? ""
  return { title, fields: { ...fields, text }, text, tags: parseStringArray(fields.tags ?? ""), file }
}

const walk = (root: string, rel = ""): Array<string> => {
  const out: Array<string> = []
  for (const name of readdirSync(join(root, rel))) {
    const r = rel ? `${rel}/${name}` : name
    const st = statSync(join(root, r))
    if (st.isDirectory()) out.push(...walk(root, r))
    else out.push(r)
  }
  return out
}

/**
 * Every tiddler stored in `<dir>/tiddlers`, by title. Titles come from inside the files, so
 * TiddlyWiki's filename encoding (`$:/` → `$__`, `/ : ? …` → `_`, transliteration,
 * a `.json` file for fields a `.tid` cannot hold, `<file>.meta` beside non-wikitext bodies)
 * does not matter. Drafts (`draft.of` field, "Draft of '…'" titles) are left out unless asked.
 */
export const readWiki = (dir: string, options: { drafts?: boolean } = {}): Map<string, Tiddler> => {
  const root = join(dir, "tiddlers")
  const wiki = new Map<string, Tiddler>()
  if (!existsSync(root)) return wiki
  const files = walk(root)
  const add = (t: Tiddler | undefined) => {
    if (!t) return
    if (!options.drafts && (t.fields["draft.of"] !== undefined || /^Draft (\d+ )?of '/.test(t.title))) return
    wiki.set(t.title, t)
  }
  for (const file of files) {
    const path = join(root, file)
    let content: string
    try {
      content = readFileSync(path, "utf8")
    } catch {
      continue // removed while we were reading (a save in flight)
    }
    if (file.endsWith(".tid")) {
      add(toTiddler(parseTid(content), file))
    } else if (file.endsWith(".json")) {
      try {
        const parsed = JSON.parse(content) as unknown
        const list = Array.isArray(parsed) ? parsed : [parsed]
        for (const entry of list) {
          if (entry && typeof entry === "object") {
            const fields: Record<string, string> = {}
            for (const [k, v] of Object.entries(entry as Record<string, unknown>)) {
              fields[k] = Array.isArray(v) ? v.map((x) => (/\s/.test(String(x)) ? `[[${x}]]` : String(x))).join(" ") : String(v)
            }
            add(toTiddler(fields, file))
          }
        }
      } catch {
        // a half-written file: the next poll will see it whole
      }
    } else if (file.endsWith(".meta")) {
      const fields: Record<string, string> = {}
      parseFieldBlock(content, fields)
      const body = path.slice(0, -".meta".length)
      try {
        fields.text = readFileSync(body, "utf8")
      } catch {
        fields.text = ""
      }
      add(toTiddler(fields, file))
    }
  }
  return wiki
}
