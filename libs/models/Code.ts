/**
 * The code in a model's answer. Models wrap code in a fence, usually with prose around
 * it, sometimes several fences (an example, then the answer) and sometimes none at all.
 *
 * @example
 * extractCode("Here it is:\n```js\nfunction labelFunction(t) { return -1 }\n```") // "function labelFunction(t) { return -1 }"
 */

const CODE_LANGUAGES: ReadonlySet<string> = new Set(["", "js", "javascript", "ts", "typescript"])

// An opening fence: three or more backticks at a line's start, an optional language word,
// and no further backticks on the line (so prose quoting "```js … ```" inline is no fence).
const OPEN = String.raw`^[ \t]*(\`{3,})[ \t]*([A-Za-z0-9_+-]*)[^\n\`]*\n`

/**
 * The first fenced JavaScript/TypeScript (or unlabelled) block's contents; else the whole
 * text when it defines `labelFunction` unfenced; else null. A block of another language
 * (```json, ```python) is skipped. An unclosed fence runs to the end of the text: an
 * answer cut off by `max_tokens` still yields its code, for the validator to judge.
 */
export const extractCode = (text: string): string | null => {
  const opening = new RegExp(OPEN, "gm")
  for (let open = opening.exec(text); open !== null; open = opening.exec(text)) {
    const start = open.index + open[0].length
    const closing = new RegExp(`^[ \\t]*${open[1]}\`*[ \\t\\r]*$`, "m").exec(text.slice(start))
    // An unclosed block may still end in a fence glued to its last line ("return -1 }```").
    const body =
      closing === null
        ? text
            .slice(start)
            .replace(/`{3,}\s*$/, "")
            .replace(/\s+$/, "")
        : text.slice(start, start + closing.index).replace(/\s+$/, "")
    // Resume after the closing fence, so it is not taken for the next opening one.
    opening.lastIndex = closing === null ? text.length : start + closing.index + closing[0].length
    if (CODE_LANGUAGES.has(open[2]!.toLowerCase()) && body.trim() !== "") return body
  }
  return /function\s+labelFunction\s*\(/.test(text) ? text.trim() : null
}
