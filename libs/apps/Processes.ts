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
  /** A process group to end (the start's, spawned detached). */
  readonly group?: number
  /**
   * With `group`, when its leader is dead: only members that started by this time (clock
   * ticks since boot, `uptimeTicks`, read when the leader's exit was seen). An emptied
   * group's id may be reused, but the reuser starts after the leader died; a daemon that
   * cleared its environment and stayed in the group started before.
   */
  readonly bornBy?: number
  /** The instance tag in the environment. */
  readonly tag?: string
}

/** Clock ticks per second of /proc's start times: USER_HZ, 100 on every Linux CORE runs on. */
const TICKS_PER_SECOND = 100

/**
 * /proc/uptime's seconds as clock ticks, read exactly: 5022.19 * 100 is 502218.99999999994
 * in floating point, and a floor would put an exit one tick before a process forked in the
 * same tick, which then escapes the dead leader's sweep.
 */
export const ticksOf = (uptime: string): number => {
  const [seconds = "0", hundredths = "0"] = uptime.trim().split(" ")[0]!.split(".")
  return Number(seconds) * TICKS_PER_SECOND + Number(hundredths.padEnd(2, "0").slice(0, 2))
}

/** Now, in the clock ticks since boot that /proc/<pid>/stat's start times count. */
export const uptimeTicks = (): number => {
  try {
    const ticks = ticksOf(readFileSync("/proc/uptime", "utf8"))
    return Number.isFinite(ticks) ? ticks : Number.POSITIVE_INFINITY
  } catch {
    return Number.POSITIVE_INFINITY
  }
}

/** `[state, pgrp, starttime]` from /proc/<pid>/stat; comm may hold spaces and parentheses, so read after the last ")". */
const statOf = (pid: string): readonly [string, number, number] | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return [fields[0] ?? "", Number(fields[2]), Number(fields[19])]
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
    const inGroup =
      selector.group !== undefined && stat[1] === selector.group && (selector.bornBy === undefined || stat[2] <= selector.bornBy)
    if (inGroup || (entry !== null && hasTag(name, entry))) found.push(Number(name))
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
  // A dead leader's group is signalled member by member: the id alone may name another group by now.
  const whole = selector.group !== undefined && selector.bornBy === undefined
  if (whole) signal(-selector.group!, "SIGTERM")
  for (const pid of pids) signal(pid, "SIGTERM")
  const until = performance.now() + graceMs
  while (pids.length > 0 && performance.now() < until) {
    await sleep(25)
    pids = all()
  }
  for (let round = 0; round < 5 && pids.length > 0; round++) {
    if (whole) signal(-selector.group!, "SIGKILL")
    for (const pid of pids) signal(pid, "SIGKILL")
    await sleep(25)
    pids = all()
  }
}
