import { describe, expect, test } from "bun:test"
import { Result } from "effect"
import { decodeEntities, parseXml, serializeXml } from "../Xml.ts"
import type { XmlElement, XmlError } from "../Xml.ts"

const ok = (text: string): XmlElement => {
  const r = parseXml(text)
  if (Result.isFailure(r)) throw new Error(`expected to parse, got: ${r.failure.message}`)
  return r.success
}

const bad = (text: string): XmlError => {
  const r = parseXml(text)
  if (Result.isSuccess(r)) throw new Error(`expected an XmlError, got <${r.success.name}>`)
  return r.failure
}

describe("parseXml reads elements and attributes", () => {
  test("given a header, a comment, nesting and a self-closing tag, when parsed, then the tree has them in order", () => {
    const root = ok(`<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<!-- a dump -->
<hierarchy rotation="0">
  <node index="0" text="a"><node index="1" text="b"/></node>
  <!-- between -->
  <node index="2" text="c" />
</hierarchy>
`)
    expect(root.name).toBe("hierarchy")
    expect(root.attributes).toEqual({ rotation: "0" })
    expect(root.children.map((c) => c.attributes.text)).toEqual(["a", "c"])
    expect(root.children[0]!.children[0]!.attributes).toEqual({ index: "1", text: "b" })
  })

  test("given single and double quotes with the other quote inside, when parsed, then each value keeps its content", () => {
    const root = ok(`<a x='say "hi"' y="it's" z = "spaced" ></a>`)
    expect(root.attributes).toEqual({ x: 'say "hi"', y: "it's", z: "spaced" })
  })

  test("given the five named and numeric references, when parsed, then they are decoded", () => {
    const root = ok(`<a t="Network &amp; internet &lt;b&gt; &quot;q&quot; &apos;s&apos; line&#10;break &#x1F600; &#233;"/>`)
    expect(root.attributes.t).toBe("Network & internet <b> \"q\" 's' line\nbreak 😀 é")
  })

  test("given an unknown entity, a bare ampersand and an invalid code point, when parsed, then they are kept as written", () => {
    expect(ok(`<a t="&nbsp; A & B &#0; &#xD800; &#1114112;"/>`).attributes.t).toBe("&nbsp; A & B &#0; &#xD800; &#1114112;")
    expect(decodeEntities("no refs")).toBe("no refs")
  })

  test("given literal line breaks and tabs in a value, when parsed, then they become spaces", () => {
    expect(ok(`<a t="one\r\ntwo\tthree"/>`).attributes.t).toBe("one  two three")
  })

  test("given a DOCTYPE, CDATA, a BOM and widget-class element names with $, when parsed, then they do not get in the way", () => {
    const root = ok(
      `\uFEFF<!DOCTYPE hierarchy [ <!ENTITY x "y"> ]><hierarchy><android.widget.TabLayout$TabView text="Tab"><![CDATA[ <not a tag> ]]></android.widget.TabLayout$TabView></hierarchy>`
    )
    expect(root.children[0]!.name).toBe("android.widget.TabLayout$TabView")
    expect(root.children[0]!.children).toEqual([])
  })

  test("given a parsed tree, when serialized and parsed again, then it is the same tree", () => {
    const root = ok(`<h a="1"><n t="x &amp; &quot;y&quot;&#10;z"><n/></n><n t="&lt;"/></h>`)
    expect(ok(serializeXml(root))).toEqual(root)
  })
})

describe("parseXml gives one clear error for malformed input", () => {
  const cases: ReadonlyArray<readonly [string, string, RegExp, number, number]> = [
    ["empty", "", /empty document/, 1, 1],
    ["whitespace only", "  \n ", /empty document/, 2, 2],
    ["only a header", `<?xml version="1.0"?>`, /no root element/, 1, 22],
    ["unclosed root", `<hierarchy>\n  <node/>`, /<hierarchy> is not closed/, 2, 10],
    ["mismatched end tag", `<a>\n<b></a>`, /end tag <\/a> does not match <b> \(line 2, column 1\)/, 2, 4],
    ["end tag without start", `<a/></b>`, /end tag <\/b> without a start tag/, 1, 5],
    ["second root", `<a/><b/>`, /a second root element <b>/, 1, 5],
    ["text outside the root", `<a/>junk`, /text outside the root element/, 1, 5],
    ["unterminated comment", `<a><!-- never ends`, /unterminated comment/, 1, 4],
    ["unterminated start tag", `<a x="1"`, /unterminated start tag <a/, 1, 1],
    ["unterminated value", `<a x="1/>`, /unterminated value of attribute x/, 1, 6],
    ["unquoted value", `<a x=1/>`, /value of attribute x in <a> is not quoted/, 1, 6],
    ["attribute without value", `<a x/>`, /attribute x in <a> has no value/, 1, 4],
    ["duplicate attribute", `<a x="1" x="2"/>`, /duplicate attribute x/, 1, 10],
    ["missing space between attributes", `<a x="1"y="2"/>`, /expected a space before attribute/, 1, 9],
    ["no element name", `< a/>`, /expected an element name after </, 1, 2]
  ]
  for (const [name, text, reason, line, column] of cases) {
    test(`given ${name}, when parsed, then an XmlError names it with its line and column`, () => {
      const e = bad(text)
      expect(e._tag).toBe("XmlError")
      expect(e.reason).toMatch(reason)
      expect({ line: e.line, column: e.column }).toEqual({ line, column })
      expect(e.message).toStartWith(`malformed XML at line ${line}, column ${column}: `)
      expect(e.message).not.toContain("\n")
    })
  }

  test("given a dump cut off in the middle, when parsed, then it is an error, not a partial tree", () => {
    const full = `<hierarchy rotation="0"><node text="a"><node text="b"/></node></hierarchy>`
    for (let cut = 1; cut < full.length; cut++) {
      expect(Result.isFailure(parseXml(full.slice(0, cut)))).toBe(true)
    }
  })
})

describe("parseXml never crashes", () => {
  test("given real dumps with bytes cut, swapped and injected at random, when parsed, then each is a tree or an XmlError", () => {
    const dump = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="A &amp; B" class="android.widget.Button" bounds="[0,0][10,10]"><node text='x' /></node><!-- c --></hierarchy>`
    // A fixed-seed generator: the same cases every run.
    let seed = 42
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n
    }
    const noise = ["<", ">", "/", '"', "'", "=", "&", "&#", "<!--", "-->", "<?", "?>", "]]>", " ", "\n", "é"]
    for (let round = 0; round < 2000; round++) {
      let text = dump
      for (let edits = 1 + random(3); edits > 0; edits--) {
        const at = random(text.length)
        const op = random(3)
        text =
          op === 0
            ? text.slice(0, at) + text.slice(at + 1 + random(5))
            : op === 1
              ? text.slice(0, at) + noise[random(noise.length)] + text.slice(at)
              : text.slice(0, at) + text.slice(at + 1, at + 2) + text.slice(at, at + 1) + text.slice(at + 2)
      }
      const r = parseXml(text)
      if (Result.isFailure(r)) {
        expect(r.failure._tag).toBe("XmlError")
        expect(r.failure.line).toBeGreaterThanOrEqual(1)
      } else {
        expect(typeof r.success.name).toBe("string")
      }
    }
  })
})
