/**
 * What "done" means for each task of tasks.json, read off the instance's database and request
 * log (wiki.ts) and the answer. One entry per task id; evaluate.ts runs it. The seed's page
 * text is the pack's own seed/pages/<Title>.wiki (as imported into the template).
 *
 * Kinds:
 * - answer: the agent's answer, normalised (trim, case, white space, quotes, a trailing full
 *   stop, a leading "the"), equals one of `accept`; with `number`, any answer that is that
 *   number, optionally followed by one of `units`, passes: "160", "160 psi".
 * - open: the last article page the browser was served is `title`.
 * - page: `title` exists, not a redirect, with `text` (normalised) and, if asked, the latest
 *   edit summary `summary`.
 * - append: the seed text of `title`, line by line, then exactly one new non-empty line that
 *   reads `line` (a list marker `* `, `# ` or `- ` in front is allowed).
 * - replace: the seed text of `title` with `from` replaced by `to` once, nothing else changed
 *   (trailing white space aside).
 * - category: `title` is in category `category`, and its text without category links is the seed's.
 * - move: `to` exists with the seed text of `from`, and the move log has `from` → `to` with `reason`.
 * - preference: the pack's user has preference `name` set to `value`.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { SEED_DIR, WIKI_USER } from "./lib.ts"
import type { Wiki } from "./wiki.ts"

export type Check =
  | { readonly kind: "answer"; readonly accept: ReadonlyArray<string>; readonly number?: number; readonly units?: ReadonlyArray<string> }
  | { readonly kind: "open"; readonly title: string }
  | { readonly kind: "page"; readonly title: string; readonly text: string; readonly summary?: string }
  | { readonly kind: "append"; readonly title: string; readonly line: string }
  | { readonly kind: "replace"; readonly title: string; readonly from: string; readonly to: string }
  | { readonly kind: "category"; readonly title: string; readonly category: string }
  | { readonly kind: "move"; readonly from: string; readonly to: string; readonly reason: string }
  | { readonly kind: "preference"; readonly name: string; readonly value: string; readonly label: string }

export const CHECKS: Readonly<Record<string, Check>> = {
  // train
  "t01-open-owlcote": { kind: "open", title: "Owlcote Station" },
  "t02-curlew-pressure": { kind: "answer", accept: ["160 psi"], number: 160, units: ["psi", "lb/in2", "pounds per square inch"] },
  "t03-signal-box-levers": { kind: "answer", accept: ["24 levers"], number: 24, units: ["levers", "lever"] },
  "t04-create-spring-gala": {
    kind: "page",
    title: "Spring Gala 2025",
    text: "The spring gala runs on 17 May with all three engines in steam."
  },
  "t05-append-workshop-log": { kind: "append", title: "Workshop Log", line: "2025-03-14 Replaced Curlew's firebox door hinge" },
  "t06-cream-tea-price": { kind: "replace", title: "Tea Room", from: "£4.50", to: "£4.95" },
  "t07-create-rota-with-summary": {
    kind: "page",
    title: "Volunteer Rota",
    text: "Rota for April: see Ines Marlow.",
    summary: "Start the rota page"
  },
  "t08-move-lost-property": { kind: "move", from: "Lost Property", to: "Lost and Found", reason: "Clearer name" },
  "t09-skin-monobook": { kind: "preference", name: "skin", value: "monobook", label: "skin" },
  "t10-categorise-badger": { kind: "category", title: "Diesel Shunter Badger", category: "Locomotives" },
  // held-out
  "h01-open-fares": { kind: "open", title: "Fares" },
  "h02-chief-driver-village": { kind: "answer", accept: ["Hatherby"] },
  "h03-wren-status": { kind: "replace", title: "Engine No. 4 Wren", from: "In service", to: "Awaiting inspection" },
  "h04-signature": { kind: "preference", name: "nickname", value: "Stationmaster of Larkspur Halt", label: "signature" }
}

export interface Verdict {
  readonly pass: boolean
  readonly reason: string
}

const collapse = (s: string): string => s.replace(/\s+/g, " ").trim()

/** Answers and short values: white space, case, wrapping quotes, a final full stop and a leading "the" do not count. */
export const normalise = (s: string): string =>
  collapse(s)
    .toLowerCase()
    .replace(/^["'“”‘’`]+|["'“”‘’`]+$/g, "")
    .replace(/[.!]+$/, "")
    .replace(/^the\s+/, "")
    .trim()

/** Page text: trailing white space of each line and blank lines at either end do not count. */
export const normaliseBody = (s: string): Array<string> => {
  const lines = s
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((l) => l.replace(/\s+$/, ""))
  while (lines.length > 0 && lines[0] === "") lines.shift()
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop()
  return lines
}

const sameBody = (a: string, b: string): boolean => normaliseBody(a).join("\n") === normaliseBody(b).join("\n")

const quote = (s: string, max = 80): string => {
  const flat = collapse(s)
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max - 1)}…` : flat)
}

const fail = (reason: string): Verdict => ({ pass: false, reason })
const ok = (reason: string): Verdict => ({ pass: true, reason })

const answerNumber = (answer: string, units: ReadonlyArray<string>): number | undefined => {
  let a = normalise(answer).replace(/,/g, "")
  for (const unit of [...units].sort((x, y) => y.length - x.length)) {
    const u = unit.toLowerCase()
    if (a.endsWith(u)) {
      a = a.slice(0, -u.length).trim()
      break
    }
  }
  return /^[-+]?(\d+(\.\d*)?|\.\d+)$/.test(a) ? Number(a) : undefined
}

/** The text a seed page was imported with. */
export const seedText = (title: string): string | undefined => {
  try {
    return readFileSync(join(SEED_DIR, "pages", `${title}.wiki`), "utf8")
  } catch {
    return undefined
  }
}

const withoutCategories = (text: string): string => text.replace(/\[\[\s*Category\s*:[^\]]*\]\]/gi, "")

/** Decides one task on the instance's `wiki`, the page it showed last (`lastView`) and the answer. */
export const decide = (check: Check, wiki: Wiki, lastView: string | undefined, answer: string): Verdict => {
  switch (check.kind) {
    case "answer": {
      if (collapse(answer) === "") return fail("no answer given")
      const given = normalise(answer)
      if (check.accept.some((a) => normalise(a) === given)) return ok(`answer ${quote(answer)} accepted`)
      if (check.number !== undefined) {
        const n = answerNumber(answer, check.units ?? [])
        if (n !== undefined && n === check.number) return ok(`answer ${quote(answer)} is ${check.number}`)
      }
      return fail(`answer ${quote(answer)} is not ${quote(check.accept[0] ?? String(check.number))}`)
    }
    case "open":
      return lastView === check.title
        ? ok(`the last page viewed is ${quote(check.title)}`)
        : fail(`the last page viewed is ${lastView === undefined ? "none" : quote(lastView)}, not ${quote(check.title)}`)
    case "page": {
      const p = wiki.page(check.title)
      if (!p) return fail(`no page titled ${quote(check.title)}`)
      if (p.redirect) return fail(`${quote(check.title)} is a redirect`)
      if (normalise(p.text) !== normalise(check.text))
        return fail(`${quote(check.title)} has text ${quote(p.text)}, want ${quote(check.text)}`)
      if (check.summary !== undefined && normalise(p.summary) !== normalise(check.summary)) {
        return fail(`${quote(check.title)} was saved with the summary ${quote(p.summary)}, want ${quote(check.summary)}`)
      }
      return ok(`${quote(check.title)} is as asked`)
    }
    case "append": {
      const before = seedText(check.title)
      const p = wiki.page(check.title)
      if (before === undefined) return fail(`the seed has no ${quote(check.title)} (pack bug)`)
      if (!p) return fail(`no page titled ${quote(check.title)}`)
      const old = normaliseBody(before)
      const now = normaliseBody(p.text)
      for (let i = 0; i < old.length; i++) {
        if (now[i] !== old[i])
          return fail(`${quote(check.title)}: line ${i + 1} was ${quote(old[i]!)}, now ${quote(now[i] ?? "(missing)")}`)
      }
      const added = now.slice(old.length).filter((l) => l.trim() !== "")
      if (added.length === 0) return fail(`${quote(check.title)}: nothing was appended`)
      if (added.length > 1) return fail(`${quote(check.title)}: ${added.length} lines were appended, want one`)
      const line = added[0]!.replace(/^\s*([*#-]+\s*)?/, "")
      return normalise(line) === normalise(check.line)
        ? ok(`${quote(check.title)} ends with ${quote(added[0]!)}`)
        : fail(`${quote(check.title)}: appended ${quote(added[0]!)}, want ${quote(check.line)}`)
    }
    case "replace": {
      const before = seedText(check.title)
      const p = wiki.page(check.title)
      if (before === undefined) return fail(`the seed has no ${quote(check.title)} (pack bug)`)
      if (!p) return fail(`no page titled ${quote(check.title)}`)
      const want = before.replace(check.from, check.to)
      if (sameBody(want, p.text)) return ok(`${quote(check.title)}: ${quote(check.from)} → ${quote(check.to)}`)
      if (sameBody(before, p.text)) return fail(`${quote(check.title)} is unchanged`)
      const a = normaliseBody(want)
      const b = normaliseBody(p.text)
      const i = a.findIndex((l, k) => b[k] !== l)
      const at = i === -1 ? a.length : i
      return fail(`${quote(check.title)}: line ${at + 1} is ${quote(b[at] ?? "(missing)")}, want ${quote(a[at] ?? "(nothing)")}`)
    }
    case "category": {
      const before = seedText(check.title)
      const p = wiki.page(check.title)
      if (before === undefined) return fail(`the seed has no ${quote(check.title)} (pack bug)`)
      if (!p) return fail(`no page titled ${quote(check.title)}`)
      const cats = wiki.categories(check.title)
      if (!cats.some((c) => normalise(c) === normalise(check.category))) {
        return fail(`${quote(check.title)} is not in ${quote(check.category)} (categories: ${cats.join(", ") || "none"})`)
      }
      if (collapse(withoutCategories(p.text)) !== collapse(withoutCategories(before)))
        return fail(`${quote(check.title)}: its text was changed too`)
      return ok(`${quote(check.title)} is in the category ${quote(check.category)}`)
    }
    case "move": {
      const before = seedText(check.from)
      if (before === undefined) return fail(`the seed has no ${quote(check.from)} (pack bug)`)
      const moved = wiki.page(check.to)
      if (!moved) return fail(`no page titled ${quote(check.to)}`)
      if (moved.redirect || !sameBody(before, moved.text)) return fail(`${quote(check.to)} does not hold the text of ${quote(check.from)}`)
      const move = wiki.moves(check.from).find((m) => m.to === check.to)
      if (!move) return fail(`${quote(check.from)} was not moved to ${quote(check.to)}`)
      if (normalise(move.reason) !== normalise(check.reason))
        return fail(`the move's reason is ${quote(move.reason)}, want ${quote(check.reason)}`)
      return ok(`${quote(check.from)} was moved to ${quote(check.to)} (${quote(move.reason)})`)
    }
    case "preference": {
      const have = wiki.preference(WIKI_USER, check.name)
      return have !== undefined && normalise(have) === normalise(check.value)
        ? ok(`${WIKI_USER}'s ${check.label} is ${quote(have)}`)
        : fail(`${WIKI_USER}'s ${check.label} is ${have === undefined ? "the default" : quote(have)}, want ${quote(check.value)}`)
    }
  }
}
