/**
 * Reading the files of a demo folder someone handed over. Checking a path's text is not
 * enough: the open itself must not follow a link (a blob that is `/etc/passwd`), must not
 * wait (a FIFO), and the size is checked on the opened file before any byte is read (a
 * sparse 3 GiB file, `/dev/zero`). A file that grows while read is cut off at the limit.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from "node:fs"
import type { Stats } from "node:fs"
import { dirname, join, sep } from "node:path"

/** A size limit and how a message names it: `per blob (ingest.maxBlobBytes)`. */
export interface ReadLimit {
  readonly bytes: number
  readonly name: string
}

export type ReadResult =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly problem: string; readonly missing: boolean }

// O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK
const CHUNK = 1024 * 1024
const UNITS = ["KiB", "MiB", "GiB", "TiB"] as const

/** `3.0 GiB`; `exact` drops the decimal when the value is whole (`16 MiB`), for limits. */
export const formatBytes = (n: number, exact = false): string => {
  if (n < 1024) return `${n} B`
  let v = n / 1024
  let i = 0
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024
    i++
  }
  return `${exact && Number.isInteger(v) ? v : v.toFixed(1)} ${UNITS[i]}`
}

const codeOf = (e: unknown): string => (typeof e === "object" && e !== null && "code" in e ? String(e.code) : "")

const kindOf = (st: Stats): string =>
  st.isFIFO()
    ? "a FIFO"
    : st.isSocket()
      ? "a socket"
      : st.isCharacterDevice()
        ? "a character device"
        : st.isBlockDevice()
          ? "a block device"
          : "not a file"

/**
 * Reads files of the folder `dir`, counting every byte read against `perDemo`. `label`
 * names the file in problems (`'shots/s0.png'`, `demo.json`).
 */
export const folderReader = (dir: string, perDemo: ReadLimit, alreadyRead = 0) => {
  let used = alreadyRead
  let realDir: string | undefined
  const refuse = (problem: string, missing = false): ReadResult => ({ ok: false, problem, missing })
  const cannot = (label: string, e: unknown): ReadResult => {
    const code = codeOf(e)
    if (code === "ENOENT" || code === "ENOTDIR") return refuse(`${label} not found`, true)
    if (code === "ELOOP" || code === "EMLINK") return refuse(`${label} is a symbolic link, not a file`)
    if (code === "EACCES" || code === "EPERM") return refuse(`${label} cannot be read (permission denied)`)
    return refuse(`${label} cannot be read (${code || (e instanceof Error ? e.message : String(e)).split("\n")[0]})`)
  }

  const read = (rel: string, label: string, perFile: ReadLimit): ReadResult => {
    const full = join(dir, rel)
    // O_NOFOLLOW guards only the last component; a linked folder on the way is caught here, before anything outside is opened.
    try {
      realDir ??= realpathSync(dir)
      const parent = realpathSync(dirname(full))
      if (parent !== realDir && !parent.startsWith(realDir.endsWith(sep) ? realDir : realDir + sep)) {
        return refuse(`${label} is in a folder outside the demo's folder (through a symbolic link)`)
      }
    } catch (e) {
      const r = cannot(label, e)
      return !r.ok && codeOf(e) === "ELOOP" ? refuse(`${label} is under a symbolic link loop`) : r
    }
    let fd: number
    try {
      fd = openSync(full, FLAGS)
    } catch (e) {
      return cannot(label, e)
    }
    try {
      return readOpen(fd, label, perFile)
    } catch (e) {
      return cannot(label, e)
    } finally {
      closeSync(fd)
    }
  }

  const readOpen = (fd: number, label: string, perFile: ReadLimit): ReadResult => {
    const st = fstatSync(fd)
    if (st.isDirectory()) return refuse(`${label} is a directory, not a file`)
    if (!st.isFile()) return refuse(`${label} is ${kindOf(st)}, not a regular file`)
    // A hard link inside the folder may be a file from anywhere the giver could reach; it is refused like a symbolic link.
    if (st.nlink > 1)
      return refuse(`${label} has ${st.nlink} hard links (it is also a file elsewhere); copy it into the demo's folder instead`)
    if (st.size > perFile.bytes)
      return refuse(`${label} is ${formatBytes(st.size)}, over the ${formatBytes(perFile.bytes, true)} limit ${perFile.name}`)
    if (used + st.size > perDemo.bytes) {
      return refuse(
        `${label} brings the demo to ${formatBytes(used + st.size)}, over the ${formatBytes(perDemo.bytes, true)} limit ${perDemo.name}`
      )
    }
    const limit = perFile.bytes <= perDemo.bytes - used ? perFile : { bytes: perDemo.bytes - used, name: perDemo.name }
    const chunks: Array<Uint8Array> = []
    let total = 0
    // Up to one byte past the limit: a file that grew since fstat is noticed, and never read further.
    for (;;) {
      // The first read is sized to the file, so a small blob does not pin a large buffer.
      const chunk = new Uint8Array(Math.min(total === 0 ? st.size + 1 : CHUNK, limit.bytes + 1 - total))
      const got = readSync(fd, chunk, 0, chunk.length, null)
      if (got === 0) break
      chunks.push(chunk.subarray(0, got))
      total += got
      if (total > limit.bytes)
        return refuse(`${label} grew past the ${formatBytes(limit.bytes, true)} limit ${limit.name} while being read`)
    }
    used += total
    return { ok: true, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) }
  }

  return { read }
}
