/**
 * The CLI's process made non-dumpable (Linux `prctl(PR_SET_DUMPABLE, 0)`). An app pack's
 * processes run as the user who runs CORE, and a process may read the /proc/<pid>/environ
 * and /proc/<pid>/mem of any other process of its user — there, CORE's model key and NATS
 * and database credentials. A non-dumpable process's /proc entries belong to root, so only
 * root can read them (and it leaves no core dump). The programs CORE starts are not marked:
 * exec makes a process dumpable again, and they hold none of CORE's secrets (Command.ts
 * gives pack processes a minimal environment).
 *
 * Best effort: off Linux, or where libc cannot be loaded (musl), the CLI runs as before.
 * This file imports nothing of CORE's, so a test can run it alone as another user.
 *
 * @example
 * if (!markNonDumpable()) console.error("CORE's environment stays readable to processes of your user")
 */
import { dlopen, FFIType } from "bun:ffi"

const PR_GET_DUMPABLE = 3
const PR_SET_DUMPABLE = 4

const prctl = { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 } as const

/** Marks this process non-dumpable; true when it now is. */
export const markNonDumpable = (): boolean => {
  if (process.platform !== "linux") return false
  try {
    const libc = dlopen("libc.so.6", { prctl })
    try {
      libc.symbols.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
      // Read back rather than trust the return value: that is what /proc's owner follows.
      return libc.symbols.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) === 0
    } finally {
      libc.close()
    }
  } catch {
    return false
  }
}
