/**
 * Files a pack names — its tasks file, auth and step files — must be regular files inside
 * the pack's folder. The text of a path is checked first (no absolute path, no `..`), then
 * the file system: the real folder of the file must be inside the pack's real folder (a
 * linked folder on the way is caught), and the file itself is opened without following a
 * link and without waiting on a FIFO, its kind, size and link count (a hard link is refused)
 * checked on the open descriptor before a byte is read — the same rules as `@core/demos`'
 * reader for demo folders.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from "node:fs"
import { dirname, isAbsolute, join, sep } from "node:path"

/** The largest JSON file of a pack (core-app.json, the tasks file). */
export const MAX_JSON_BYTES = 1024 * 1024

export type PackFileResult = { readonly ok: true; readonly bytes: Uint8Array } | { readonly ok: false; readonly problem: string }

const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK

const codeOf = (e: unknown): string => (typeof e === "object" && e !== null && "code" in e ? String(e.code) : "")

/** Why `rel`, as written, cannot name a file inside the pack; null when it can. */
export const pathProblem = (rel: string): string | null => {
  if (rel === "") return "an empty path"
  if (rel.includes("\0")) return "a path with a NUL character"
  if (isAbsolute(rel) || rel.startsWith("~")) return `'${rel}' is not a path inside the pack (it must be relative)`
  if (rel.split(/[\\/]/).includes("..")) return `'${rel}' is not a path inside the pack (no '..')`
  return null
}

const cannot = (label: string, e: unknown): string => {
  const code = codeOf(e)
  if (code === "ENOENT" || code === "ENOTDIR") return `${label} not found in the pack`
  if (code === "ELOOP" || code === "EMLINK") return `${label} is a symbolic link, not a file`
  if (code === "EACCES" || code === "EPERM") return `${label} cannot be read (permission denied)`
  return `${label} cannot be read (${code || (e instanceof Error ? e.message : String(e)).split("\n")[0]})`
}

/**
 * Opens `rel` inside the pack folder `dir` and checks it is a regular file of at most
 * `maxBytes`; its bytes are read only when `read` is set.
 */
export const packFile = (dir: string, rel: string, options: { readonly read: boolean; readonly maxBytes: number }): PackFileResult => {
  const label = `'${rel}'`
  const textual = pathProblem(rel)
  if (textual !== null) return { ok: false, problem: textual }
  const full = join(dir, rel)
  try {
    const root = realpathSync(dir)
    const parent = realpathSync(dirname(full))
    if (parent !== root && !parent.startsWith(root.endsWith(sep) ? root : root + sep)) {
      return { ok: false, problem: `${label} is in a folder outside the pack (through a symbolic link)` }
    }
  } catch (e) {
    return { ok: false, problem: codeOf(e) === "ELOOP" ? `${label} is under a symbolic link loop` : cannot(label, e) }
  }
  let fd: number
  try {
    fd = openSync(full, FLAGS)
  } catch (e) {
    return { ok: false, problem: cannot(label, e) }
  }
  try {
    const st = fstatSync(fd)
    if (st.isDirectory()) return { ok: false, problem: `${label} is a directory, not a file` }
    if (!st.isFile()) return { ok: false, problem: `${label} is not a regular file` }
    // A hard link may be a file from anywhere the pack's author could reach: refused like a symbolic link.
    if (st.nlink > 1)
      return { ok: false, problem: `${label} has ${st.nlink} hard links (it is also a file elsewhere); copy it into the pack instead` }
    if (st.size > options.maxBytes) return { ok: false, problem: `${label} is ${st.size} bytes, over the ${options.maxBytes}-byte limit` }
    if (!options.read) return { ok: true, bytes: new Uint8Array() }
    // One byte past the limit: a file that grew since fstat is noticed, and never read further.
    const buffer = new Uint8Array(options.maxBytes + 1)
    let total = 0
    for (;;) {
      const got = readSync(fd, buffer, total, buffer.length - total, null)
      if (got === 0) break
      total += got
      if (total > options.maxBytes) return { ok: false, problem: `${label} grew past the ${options.maxBytes}-byte limit while being read` }
    }
    return { ok: true, bytes: buffer.slice(0, total) }
  } catch (e) {
    return { ok: false, problem: cannot(label, e) }
  } finally {
    closeSync(fd)
  }
}
