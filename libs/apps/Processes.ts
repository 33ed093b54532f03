/**
 * Finding and ending every process an instance started. A pack's start runs in its own
 * process group, but a daemon can leave the group (a new session): so every process CORE
 * spawns for an instance carries `CORE_APP_INSTANCE_TAG=<tag>` in its environment, which
 * its children inherit and `/proc/<pid>/environ` shows. A process that clears its own
 * environment escapes the tag; it still dies with the group unless it also left that.
 */
import { readdirSync, readFileSync } from "node:fs"

export const TAG_VARIABLE = "CORE_APP_INSTANCE_TAG"

export interface Selector {
  /**
   * A process group to end (the start's, spawned detached). Only while its leader is known
   * to be alive: the id of an emptied group may be reused by another process.
   */
  readonly group?: number
  /** The instance tag in the environment. */
  readonly tag?: string
}

/** `[state, pgrp]` from /proc/<pid>/stat; comm may hold spaces and parentheses, so read after the last ")". */
const statOf = (pid: string): readonly [string, number] | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return [fields[0] ?? "", Number(fields[2])]
  } catch {
    return null
  }
}

const hasTag = (pid: string, entry: string): boolean => {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(entry)
  } catch {
    return false
  }
}

/** Live (not zombie) processes in the group or carrying the tag, never this process. */
export const findProcesses = (selector: Selector): ReadonlyArray<number> => {
  const entry = selector.tag === undefined ? null : `${TAG_VARIABLE}=${selector.tag}`
  const found: Array<number> = []
  let names: Array<string>
  try {
    names = readdirSync("/proc")
  } catch {
    return found
  }
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    const stat = statOf(name)
    if (stat === null || stat[0] === "Z" || stat[0] === "X") continue
    if ((selector.group !== undefined && stat[1] === selector.group) || (entry !== null && hasTag(name, entry))) found.push(Number(name))
  }
  return found
}

const signal = (pid: number, sig: NodeJS.Signals): void => {
  try {
    process.kill(pid, sig)
  } catch {
    // Already gone.
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Ends every process `selector` names: SIGTERM, up to `graceMs` to exit, then SIGKILL
 * (again for any that forked meanwhile). Never throws.
 */
export const endProcesses = async (selector: Selector, graceMs = 2000): Promise<void> => {
  const all = () => findProcesses(selector)
  let pids = all()
  if (selector.group !== undefined) signal(-selector.group, "SIGTERM")
  for (const pid of pids) signal(pid, "SIGTERM")
  const until = performance.now() + graceMs
  while (pids.length > 0 && performance.now() < until) {
    await sleep(25)
    pids = all()
  }
  for (let round = 0; round < 5 && pids.length > 0; round++) {
    if (selector.group !== undefined) signal(-selector.group, "SIGKILL")
    for (const pid of pids) signal(pid, "SIGKILL")
    await sleep(25)
    pids = all()
  }
}
