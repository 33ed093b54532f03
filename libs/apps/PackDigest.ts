/**
 * What identifies a pack across machines: every file in its folder, hashed. A work-queue
 * job names its pack by this digest, and a worker holding another refuses it — the same
 * tasks with another `start.ts`, checker or dependency are another app, and their episodes
 * would not be the driver's.
 *
 * The walk never follows a link (a link is hashed as its target's text) and never opens
 * anything but a regular file, so a FIFO cannot hang it. Files the pack's own processes
 * write in its folder while it runs (a log, a marker) are named in `runtimeFiles`; they are
 * left out, or a pack would change identity by being used.
 *
 * @example
 * const digest = yield* packDigest(pack) // 64 hex characters
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { canonicalJson, sha256 } from "@core/events"
import { PACK_FILE, PackError } from "./Format.ts"
import type { Pack } from "./Pack.ts"

const CHUNK = 1 << 20

const fileHash = (path: string): string => {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${path} changed while it was read`)
    const hasher = new Bun.CryptoHasher("sha256")
    const buf = new Uint8Array(CHUNK)
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) hasher.update(buf.subarray(0, n))
    return hasher.digest("hex")
  } finally {
    closeSync(fd)
  }
}

/** Whether `rel` (slash-separated, from the pack's folder) is one of the pack's runtime files or under one of its runtime folders. */
export const isRuntimeFile = (rel: string, runtimeFiles: ReadonlyArray<string>): boolean =>
  runtimeFiles.some((r) => (r.endsWith("/") ? `${rel}/`.startsWith(r) : rel === r))

/** Every entry under `dir` but the runtime files: [path, what it is] in path order. */
const entries = (dir: string, runtimeFiles: ReadonlyArray<string>): Array<readonly [string, string]> => {
  const out: Array<readonly [string, string]> = []
  const walk = (rel: string) => {
    const names = readdirSync(rel === "" ? dir : join(dir, rel)).sort()
    for (const name of names) {
      const path = rel === "" ? name : `${rel}/${name}`
      if (isRuntimeFile(path, runtimeFiles)) continue
      const full = join(dir, path)
      const st = lstatSync(full)
      if (st.isDirectory()) walk(path)
      else if (st.isSymbolicLink()) out.push([path, `link ${readlinkSync(full)}`])
      else if (st.isFile()) out.push([path, `file ${fileHash(full)}`])
      else out.push([path, "special"])
    }
  }
  walk("")
  return out
}

export const packDigest = (pack: Pack): Effect.Effect<string, PackError> =>
  Effect.try({
    try: () => sha256(canonicalJson(entries(pack.dir, pack.config.runtimeFiles))),
    catch: (e) =>
      new PackError({
        file: pack.file.slice(0, -PACK_FILE.length) || ".",
        path: null,
        problem: `cannot read the pack to take its digest: ${(e instanceof Error ? e.message : String(e)).split("\n")[0]}`
      })
  })
