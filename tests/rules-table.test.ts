/**
 * docs/method.md's table of behaviour versions is the registries' (libs/domain/rules): a
 * version or rule added, renamed or moved there and not in the doc fails here, with the
 * command that rewrites the doc's copy.
 */
import { expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { withTable } from "../scripts/rules-table.ts"

const DOC = join(import.meta.dir, "..", "docs", "method.md")

test("docs/method.md's table of versions is the registries'", () => {
  const doc = readFileSync(DOC, "utf8")
  if (withTable(doc) !== doc) {
    throw new Error("docs/method.md's table of versions differs from libs/domain/rules: run `bun scripts/rules-table.ts --write`")
  }
})

test("the check itself can fail: a table missing a version differs", () => {
  const doc = readFileSync(DOC, "utf8")
  const stale = doc.replace(/\n\| exploration \(`run\.exploration`\) \| 13[^\n]*/, "")
  expect(stale).not.toBe(doc)
  expect(withTable(stale)).not.toBe(stale)
})
