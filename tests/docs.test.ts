/**
 * The docs live in the repository and stand on their own:
 *
 * - code, scripts and CI state their reasons in their own words or point to docs/*.md —
 *   never to notes kept outside the repository or to tracker numbers, which a reader of
 *   the code cannot open;
 * - markdown does not cite those notes either;
 * - README.md stays short (the detail is in docs/);
 * - every relative link in README.md and docs/*.md leads to a file that exists, and a link
 *   to a heading (`file.md#heading`) to a heading that exists.
 */
import { expect, test } from "bun:test"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const ROOT = join(import.meta.dir, "..")

// Built from parts, so that this file does not match its own patterns.
const OUTSIDE_REFS = ["DESIGN[ ]§", "METHOD[-]NOTES", "[Ii]ssue[ ][0-9]"].join("|")
const OUTSIDE_NOTES = ["DESIGN[.]md", "DESIGN[ ]§", "METHOD[-]NOTES"].join("|")

/**
 * `git grep` over tracked files and new ones not yet added (ignored files such as
 * node_modules stay out). Exit 0: matches; 1: none; anything else: git failed.
 * Nothing is excluded: no fixture holds such text today. Should one ever have to, exclude
 * that file here by name, with the reason.
 */
const gitGrep = (pattern: string, pathspecs: ReadonlyArray<string>): Array<string> => {
  const r = Bun.spawnSync(["git", "grep", "--untracked", "-nE", pattern, "--", ...pathspecs], { cwd: ROOT })
  if (r.exitCode === 1) return []
  if (r.exitCode !== 0) throw new Error(`git grep failed: ${r.stderr.toString()}`)
  return r.stdout
    .toString()
    .split("\n")
    .filter((l) => l.length > 0)
}

test("no code comment, script or CI file cites a note outside the repository or an issue number", () => {
  expect(gitGrep(OUTSIDE_REFS, ["*.ts", "*.js", "*.json", "*.sh", "scripts", ".ci"])).toEqual([])
})

test("no markdown file cites the notes outside the repository", () => {
  expect(gitGrep(OUTSIDE_NOTES, ["*.md"])).toEqual([])
})

test("README.md is at most 160 lines", () => {
  const lines = readFileSync(join(ROOT, "README.md"), "utf8").replace(/\n+$/, "").split("\n")
  expect(lines.length).toBeLessThanOrEqual(160)
})

/** The markdown files whose links are checked: README.md and docs/*.md. */
const markdownFiles = (): Array<string> => [
  join(ROOT, "README.md"),
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => join(ROOT, "docs", f))
]

/** The text outside fenced code blocks, line by line (fenced lines become empty). */
const proseLines = (text: string): Array<string> => {
  let fence: string | null = null
  return text.split("\n").map((line) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(line)
    if (m) {
      if (fence === null) fence = m[1]![0]!
      else if (m[1]![0] === fence) fence = null
      return ""
    }
    return fence === null ? line : ""
  })
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2, … */
const anchorsOf = (file: string): Set<string> => {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const line of proseLines(readFileSync(file, "utf8"))) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!m) continue
    const base = m[1]!
      .toLowerCase()
      .replace(/<[^>]+>/g, "")
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .trim()
      .replace(/\s/g, "-")
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    anchors.add(n === 0 ? base : `${base}-${n}`)
  }
  return anchors
}

/** Inline links `[text](target)` outside code, with the line they are on. */
const linksOf = (file: string): Array<{ line: number; target: string }> => {
  const out: Array<{ line: number; target: string }> = []
  proseLines(readFileSync(file, "utf8")).forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, "")
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ line: i + 1, target: m[1]! })
  })
  return out
}

test("every relative link in README.md and docs/*.md points to a file (and heading) that exists", () => {
  const broken: Array<string> = []
  for (const file of markdownFiles()) {
    const where = (line: number) => `${relative(ROOT, file)}:${line}`
    for (const { line, target } of linksOf(file)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // http:, https:, mailto:
      const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined]
      const path = decodeURI(pathPart.split("?")[0]!)
      const resolved = path === "" ? file : resolve(dirname(file), path)
      if (!existsSync(resolved)) {
        broken.push(`${where(line)}: ${target}: no such file`)
        continue
      }
      if (
        anchor !== undefined &&
        anchor !== "" &&
        statSync(resolved).isFile() &&
        resolved.endsWith(".md") &&
        !anchorsOf(resolved).has(anchor.toLowerCase())
      ) {
        broken.push(`${where(line)}: ${target}: no heading with that anchor`)
      }
    }
  }
  expect(broken).toEqual([])
})
