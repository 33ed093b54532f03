/**
 * What "done" means for each task of tasks.json, read off the wiki's tiddler files (lib.ts
 * `readWiki`, drafts left out) and the answer. One entry per task id; evaluate.ts runs it.
 *
 * Kinds:
 * - answer: the agent's answer, normalised (trim, case, white space, quotes, a trailing
 *   full stop, a leading "the"), equals one of `accept`; with `number`, any answer that is
 *   that number (optionally followed by one of `units`) passes: "14", "14.0", "14 knots".
 * - open: `$:/StoryList` (the story river, which the browser syncs to the server like any
 *   tiddler) lists `title`.
 * - tiddler: `title` exists (exactly that title, not a draft) with `text` (normalised),
 *   `tags` among its tags and `fields` set (values normalised); with `textUnchanged`, its
 *   text is still the seed's.
 * - append: the seed text of `title`, line by line, followed by exactly one new non-empty
 *   line that reads `line` (a list marker `* `, `# ` or `- ` in front is allowed).
 * - replace: the seed text of `title` with the one whole word `from` replaced by `to`, and
 *   nothing else changed (trailing white space aside).
 */
import { type Tiddler, parseStringArray as parseList } from "./lib.ts"

export type Check =
  | { readonly kind: "answer"; readonly accept: ReadonlyArray<string>; readonly number?: number; readonly units?: ReadonlyArray<string> }
  | { readonly kind: "open"; readonly title: string }
  | {
      readonly kind: "tiddler"
      readonly title: string
      readonly text?: string
      readonly tags?: ReadonlyArray<string>
      readonly fields?: Readonly<Record<string, string>>
      readonly textUnchanged?: boolean
    }
  | { readonly kind: "append"; readonly title: string; readonly line: string }
  | { readonly kind: "replace"; readonly title: string; readonly from: string; readonly to: string }

export const CHECKS: Readonly<Record<string, Check>> = {
  // train
  "t01-open-storm-protocol": { kind: "open", title: "Storm Protocol" },
  "t02-search-spare-fuses": {
    kind: "answer",
    accept: ["Workshop", "the red cabinet in the Workshop", "red cabinet in the Workshop", "in the Workshop"]
  },
  "t03-create-visitor-log": { kind: "tiddler", title: "Visitor Log", text: "First visitor: harbour inspector, 3 May" },
  "t04-set-generator-status": {
    kind: "tiddler",
    title: "Generator G2",
    fields: { status: "offline" },
    tags: ["Equipment"],
    textUnchanged: true
  },
  "t05-tag-water-pump-urgent": { kind: "tiddler", title: "Water Pump", tags: ["Urgent", "Equipment"], textUnchanged: true },
  "t06-follow-lead-hometown": { kind: "answer", accept: ["Port Elspeth"] },
  "t07-append-maintenance-log": { kind: "append", title: "Maintenance Log", line: "2024-05-02 Replaced pump seal" },
  "t08-fish-stew-haddock": { kind: "replace", title: "Fish Stew", from: "cod", to: "haddock" },
  "t09-create-fuel-delivery": { kind: "tiddler", title: "Fuel Delivery", text: "Next delivery expected on 1 June", tags: ["Log"] },
  "t10-follow-generator-maintainer": { kind: "answer", accept: ["Tomas Reyes"] },
  // held-out
  "h01-open-weather-mast": { kind: "open", title: "Weather Mast" },
  "h02-search-petrel-speed": { kind: "answer", accept: ["14 knots"], number: 14, units: ["knots", "knot", "kn", "kt", "kts"] },
  "h03-append-weather-log": { kind: "append", title: "Weather Log", line: "2024-04-30 wind 11 kn, rain 0 mm" },
  "h04-oat-bread-syrup": { kind: "replace", title: "Oat Bread", from: "honey", to: "syrup" },
  "h05-set-priya-role": { kind: "tiddler", title: "Priya Nair", fields: { role: "Doctor" }, tags: ["Staff"], textUnchanged: true },
  "h06-tag-satellite-phone-retired": { kind: "tiddler", title: "Satellite Phone", tags: ["Retired", "Equipment"], textUnchanged: true },
  "h07-follow-tern-count": { kind: "answer", accept: ["312 pairs", "312 breeding pairs"], number: 312, units: ["pairs", "breeding pairs"] }
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

/** Body text: trailing white space of each line and blank lines at either end do not count. */
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
  return /^[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?$/.test(a) ? Number(a) : undefined
}

/** Decides one task. `wiki` is the instance's tiddlers, `seed` the pack's seed tiddlers. */
export const decide = (check: Check, wiki: ReadonlyMap<string, Tiddler>, seed: ReadonlyMap<string, Tiddler>, answer: string): Verdict => {
  const seedText = (title: string): string | undefined => seed.get(title)?.text
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
    case "open": {
      const story = wiki.get("$:/StoryList")
      if (!story) return fail("$:/StoryList is not saved yet")
      const list = parseList(story.fields.list ?? "")
      return list.includes(check.title)
        ? ok(`${quote(check.title)} is open (story: ${list.map((t) => quote(t, 30)).join(", ")})`)
        : fail(`${quote(check.title)} is not open (story: ${list.map((t) => quote(t, 30)).join(", ") || "empty"})`)
    }
    case "tiddler": {
      const t = wiki.get(check.title)
      if (!t) {
        const close = [...wiki.keys()].find((k) => normalise(k) === normalise(check.title))
        return fail(`no tiddler titled ${quote(check.title)}${close ? ` (there is ${quote(close)})` : ""}`)
      }
      if (check.text !== undefined && normalise(t.text) !== normalise(check.text)) {
        return fail(`${quote(check.title)} has text ${quote(t.text)}, want ${quote(check.text)}`)
      }
      for (const tag of check.tags ?? []) {
        if (!t.tags.some((have) => normalise(have) === normalise(tag)))
          return fail(`${quote(check.title)} lacks tag ${quote(tag)} (tags: ${t.tags.join(", ") || "none"})`)
      }
      for (const [field, want] of Object.entries(check.fields ?? {})) {
        const have = t.fields[field]
        if (have === undefined || normalise(have) !== normalise(want)) {
          return fail(`${quote(check.title)} field ${field} is ${have === undefined ? "absent" : quote(have)}, want ${quote(want)}`)
        }
      }
      if (check.textUnchanged) {
        const before = seedText(check.title)
        if (before !== undefined && !sameBody(before, t.text)) return fail(`${quote(check.title)}: its text was changed too`)
      }
      return ok(`${quote(check.title)} is as asked`)
    }
    case "append": {
      const t = wiki.get(check.title)
      const before = seedText(check.title)
      if (before === undefined) return fail(`the seed has no ${quote(check.title)} (pack bug)`)
      if (!t) return fail(`no tiddler titled ${quote(check.title)}`)
      const old = normaliseBody(before)
      const now = normaliseBody(t.text)
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
      const t = wiki.get(check.title)
      const before = seedText(check.title)
      if (before === undefined) return fail(`the seed has no ${quote(check.title)} (pack bug)`)
      if (!t) return fail(`no tiddler titled ${quote(check.title)}`)
      const word = new RegExp(`\\b${check.from.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`)
      const want = before.replace(word, check.to)
      if (sameBody(want, t.text)) return ok(`${quote(check.title)}: ${quote(check.from)} → ${quote(check.to)}`)
      if (sameBody(before, t.text)) return fail(`${quote(check.title)} is unchanged`)
      const a = normaliseBody(want)
      const b = normaliseBody(t.text)
      const i = a.findIndex((l, k) => b[k] !== l)
      const at = i === -1 ? a.length : i
      return fail(`${quote(check.title)}: line ${at + 1} is ${quote(b[at] ?? "(missing)")}, want ${quote(a[at] ?? "(nothing)")}`)
    }
  }
}
