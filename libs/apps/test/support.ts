/**
 * The fixture packs copied into a fresh temporary folder per test file, variants of them
 * written beside, and the check that nothing a pack started is still running: every pack
 * process works in (or names) that folder, or carries an instance's tag.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const FIXTURES = join(import.meta.dir, "fixtures")

/** A private copy of the fixtures: `<root>/good`, `<root>/daemon`, `<root>/start.ts`, … */
export const fixtureRoot = (prefix: string): string => {
  const root = mkdtempSync(join(tmpdir(), `core-apps-${prefix}-`))
  cpSync(FIXTURES, root, { recursive: true })
  return root
}

/** Removes the copy, first killing anything a failed test left running in it. */
export const removeRoot = (root: string): void => {
  for (const line of leftovers(root)) {
    try {
      process.kill(Number(line.slice(0, line.indexOf(":"))), "SIGKILL")
    } catch {
      // Gone meanwhile.
    }
  }
  rmSync(root, { recursive: true, force: true })
}

/**
 * A pack `<root>/<name>` made from `base` ("good" or "daemon") with its core-app.json
 * changed by `patch` (given the parsed JSON) and extra files written.
 */
export const variant = (
  root: string,
  name: string,
  patch: (config: any) => void,
  options: { readonly base?: string; readonly files?: Record<string, string> } = {}
): string => {
  const dir = join(root, name)
  cpSync(join(root, options.base ?? "good"), dir, { recursive: true })
  const config = JSON.parse(readFileSync(join(dir, "core-app.json"), "utf8"))
  patch(config)
  writeFileSync(join(dir, "core-app.json"), JSON.stringify(config, null, 2))
  for (const [file, text] of Object.entries(options.files ?? {})) {
    mkdirSync(join(dir, file, ".."), { recursive: true })
    writeFileSync(join(dir, file), text)
  }
  return dir
}

/** The start command of a misbehaving pack (fixtures/start.ts), from a variant's folder. */
export const startMode = (mode: string): ReadonlyArray<string> => ["bun", "../start.ts", mode, "{port}"]

/** Live processes whose working directory or command line is under `root`, or that carry `tag`. */
export const leftovers = (root: string, tags: ReadonlyArray<string> = []): Array<string> => {
  const found: Array<string> = []
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") continue
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ")
      let cwd = ""
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`)
      } catch {
        // Not ours to read.
      }
      let environ = ""
      try {
        environ = readFileSync(`/proc/${pid}/environ`, "latin1")
      } catch {
        // Not ours to read.
      }
      if (cwd.startsWith(root) || cmdline.includes(root) || tags.some((t) => environ.includes(`CORE_APP_INSTANCE_TAG=${t}\0`))) {
        found.push(`${pid}: ${cmdline.trim()} (cwd ${cwd})`)
      }
    } catch {
      // Gone while listing.
    }
  }
  return found
}

/** Polls until `check` holds or `ms` pass; returns whether it held. */
export const eventually = async (check: () => boolean | Promise<boolean>, ms = 5000): Promise<boolean> => {
  const until = performance.now() + ms
  for (;;) {
    if (await check()) return true
    if (performance.now() > until) return false
    await Bun.sleep(25)
  }
}

/** True when nothing answers at `url`. */
export const down = (url: string): Promise<boolean> =>
  fetch(url, { signal: AbortSignal.timeout(1000) }).then(
    () => false,
    () => true
  )
