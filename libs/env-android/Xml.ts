/**
 * A small XML reader for UI hierarchy dumps: elements and their attributes, nothing else.
 * UiAutomator page sources are a few tens of kilobytes of elements with attributes and no
 * text content; a dependency for that would be more code than this file.
 *
 * What it reads: the `<?xml … ?>` header and other processing instructions (skipped),
 * comments, `<!DOCTYPE …>` and CDATA sections (skipped), start tags with attributes in
 * single or double quotes, self-closing tags, end tags. Text between elements is ignored.
 *
 * Decisions on bad input:
 * - Structure is strict: an unterminated tag, comment or quote, a mismatched end tag, an
 *   attribute without a quoted value, a duplicate attribute, no root or a second root is an
 *   `XmlError` naming the line and column — never a partial tree, never a crash.
 * - References are lenient: `&amp; &lt; &gt; &quot; &apos; &#NN; &#xHH;` are decoded; any
 *   other `&` (an unknown entity, a bare ampersand, an out-of-range code point) is kept as
 *   written, since a device's odd escaping should not cost the whole observation.
 * - Literal tabs and line breaks in attribute values become spaces, as XML prescribes
 *   (a dumped newline arrives as `&#10;` and survives).
 */
import { Result, Schema } from "effect"

export interface XmlElement {
  readonly name: string
  readonly attributes: Readonly<Record<string, string>>
  readonly children: ReadonlyArray<XmlElement>
}

/** Malformed XML: what is wrong and where (1-based line and column). */
export class XmlError extends Schema.TaggedError<XmlError>()("XmlError", {
  reason: Schema.String,
  line: Schema.Number,
  column: Schema.Number
}) {
  override get message() {
    return `malformed XML at line ${this.line}, column ${this.column}: ${this.reason}`
  }
}

const NAMED: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }

/** Decodes the five named and the numeric references; anything else stays as written. */
export const decodeEntities = (raw: string): string => {
  if (!raw.includes("&")) return raw
  return raw.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z]+);/g, (whole, ref: string) => {
    if (ref.startsWith("#")) {
      const code = ref[1] === "x" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10)
      const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
      return valid ? String.fromCodePoint(code) : whole
    }
    return NAMED[ref] ?? whole
  })
}

/** Escapes text for a double-quoted attribute value; line breaks as references so they survive re-reading. */
export const escapeAttribute = (value: string): string =>
  value.replace(/[&<>"\n\r\t]/g, (c) =>
    c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : `&#${c.charCodeAt(0)};`
  )

/** The element as XML text, two-space indented, attributes in their original order. */
export const serializeXml = (root: XmlElement): string => {
  const out: Array<string> = ['<?xml version="1.0" encoding="UTF-8"?>']
  const write = (el: XmlElement, depth: number): void => {
    const attrs = Object.entries(el.attributes)
      .map(([k, v]) => ` ${k}="${escapeAttribute(v)}"`)
      .join("")
    const pad = "  ".repeat(depth)
    if (el.children.length === 0) {
      out.push(`${pad}<${el.name}${attrs}/>`)
      return
    }
    out.push(`${pad}<${el.name}${attrs}>`)
    for (const child of el.children) write(child, depth + 1)
    out.push(`${pad}</${el.name}>`)
  }
  write(root, 0)
  return out.join("\n")
}

/** Thrown inside the reader only; `parseXml` turns it into an `XmlError`. */
class Syntax {
  constructor(
    readonly reason: string,
    readonly at: number
  ) {}
}

const position = (text: string, at: number): { line: number; column: number } => {
  let line = 1
  let start = 0
  for (let i = 0; i < at && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++
      start = i + 1
    }
  }
  return { line, column: at - start + 1 }
}

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13
/** Name characters, leniently: anything but space, quotes and the tag delimiters. */
const isNameChar = (c: number): boolean =>
  !isSpace(c) && c !== 47 && c !== 62 && c !== 60 && c !== 61 && c !== 34 && c !== 39 && !Number.isNaN(c)

interface Open {
  readonly name: string
  readonly attributes: Record<string, string>
  readonly children: Array<XmlElement>
  readonly at: number
}

const read = (text: string): XmlElement => {
  const n = text.length
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  const stack: Array<Open> = []
  const doc: { root: XmlElement | null } = { root: null }

  const expectEnd = (marker: string, what: string, from: number): number => {
    const end = text.indexOf(marker, i)
    if (end === -1) throw new Syntax(`unterminated ${what}`, from)
    return end + marker.length
  }
  const readName = (what: string): string => {
    const start = i
    while (i < n && isNameChar(text.charCodeAt(i))) i++
    if (i === start)
      throw new Syntax(i >= n ? `unexpected end of input in ${what}` : `expected ${what}, found ${JSON.stringify(text[i])}`, i)
    return text.slice(start, i)
  }
  const skipSpace = () => {
    while (i < n && isSpace(text.charCodeAt(i))) i++
  }
  const attach = (el: XmlElement, at: number) => {
    const parent = stack[stack.length - 1]
    if (parent !== undefined) parent.children.push(el)
    else if (doc.root === null) doc.root = el
    else throw new Syntax(`a second root element <${el.name}> after </${doc.root.name}>`, at)
  }

  while (i < n) {
    const lt = text.indexOf("<", i)
    const textEnd = lt === -1 ? n : lt
    if (stack.length === 0) {
      for (let k = i; k < textEnd; k++) {
        if (!isSpace(text.charCodeAt(k))) throw new Syntax(`text outside the root element`, k)
      }
    }
    if (lt === -1) break
    i = lt
    const start = i
    if (text.startsWith("<?", i)) {
      i = expectEnd("?>", "processing instruction (<? … ?>)", start)
    } else if (text.startsWith("<!--", i)) {
      i = expectEnd("-->", "comment (<!-- … -->)", start)
    } else if (text.startsWith("<![CDATA[", i)) {
      if (stack.length === 0) throw new Syntax("CDATA outside the root element", start)
      i = expectEnd("]]>", "CDATA section", start)
    } else if (text.startsWith("<!", i)) {
      // <!DOCTYPE …>, with an optional [internal subset].
      const bracket = text.indexOf("[", i)
      const close = text.indexOf(">", i)
      if (bracket !== -1 && (close === -1 || bracket < close)) {
        i = bracket
        i = expectEnd("]", "DOCTYPE internal subset", start)
      }
      i = expectEnd(">", "declaration (<! … >)", start)
    } else if (text.startsWith("</", i)) {
      i += 2
      const name = readName("an element name after </")
      skipSpace()
      if (text.charCodeAt(i) !== 62) throw new Syntax(`expected > to close </${name}`, i)
      i++
      const open = stack.pop()
      if (open === undefined) throw new Syntax(`end tag </${name}> without a start tag`, start)
      if (open.name !== name) {
        const at = position(text, open.at)
        throw new Syntax(`end tag </${name}> does not match <${open.name}> (line ${at.line}, column ${at.column})`, start)
      }
      attach({ name: open.name, attributes: open.attributes, children: open.children }, start)
    } else {
      i++
      const name = readName("an element name after <")
      const attributes: Record<string, string> = {}
      for (;;) {
        const before = i
        skipSpace()
        if (i >= n) throw new Syntax(`unterminated start tag <${name}`, start)
        const c = text.charCodeAt(i)
        if (c === 62) {
          i++
          stack.push({ name, attributes, children: [], at: start })
          break
        }
        if (c === 47) {
          if (text.charCodeAt(i + 1) !== 62) throw new Syntax(`expected /> in <${name}`, i)
          i += 2
          attach({ name, attributes, children: [] }, start)
          break
        }
        if (i === before) throw new Syntax(`expected a space before attribute in <${name}`, i)
        const attrAt = i
        const key = readName(`an attribute name in <${name}`)
        skipSpace()
        if (i >= n) throw new Syntax(`unterminated start tag <${name}`, start)
        if (text.charCodeAt(i) !== 61) throw new Syntax(`attribute ${key} in <${name}> has no value`, attrAt)
        i++
        skipSpace()
        if (i >= n) throw new Syntax(`unterminated start tag <${name}`, start)
        const quote = text.charCodeAt(i)
        if (quote !== 34 && quote !== 39) throw new Syntax(`the value of attribute ${key} in <${name}> is not quoted`, i)
        const close = text.indexOf(quote === 34 ? '"' : "'", i + 1)
        if (close === -1) throw new Syntax(`unterminated value of attribute ${key} in <${name}>`, i)
        if (Object.hasOwn(attributes, key)) throw new Syntax(`duplicate attribute ${key} in <${name}>`, attrAt)
        attributes[key] = decodeEntities(text.slice(i + 1, close).replace(/[\t\n\r]/g, " "))
        i = close + 1
      }
    }
  }
  const open = stack[stack.length - 1]
  if (open !== undefined) throw new Syntax(`unexpected end of input: <${open.name}> is not closed`, n)
  if (doc.root === null) throw new Syntax(text.trim() === "" ? "empty document" : "no root element", n)
  return doc.root
}

/** Parses a document into its root element, or says in one line what is wrong and where. */
export const parseXml = (text: string): Result.Result<XmlElement, XmlError> => {
  try {
    return Result.succeed(read(text))
  } catch (e) {
    if (!(e instanceof Syntax)) throw e
    const at = position(text, e.at)
    return Result.fail(new XmlError({ reason: e.reason, line: at.line, column: at.column }))
  }
}
