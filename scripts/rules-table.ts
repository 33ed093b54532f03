/**
 * Writes the table of behaviour versions into docs/method.md from the registries
 * (libs/domain/rules), between its marker comments; without `--write` it prints the table.
 * tests/rules-table.test.ts fails when the doc's copy differs.
 *
 * @example
 * bun scripts/rules-table.ts --write
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { TABLE_END, TABLE_START, versionsTable } from "@core/domain"

const DOC = join(import.meta.dir, "..", "docs", "method.md")

/** The doc with its table replaced by the registries' (the markers must be there). */
export const withTable = (doc: string): string => {
  const start = doc.indexOf(TABLE_START)
  const end = doc.indexOf(TABLE_END)
  if (start < 0 || end < start) throw new Error(`docs/method.md has no ${TABLE_START} … ${TABLE_END} section`)
  return `${doc.slice(0, start + TABLE_START.length)}\n${versionsTable()}\n${doc.slice(end)}`
}

if (import.meta.main) {
  if (process.argv.includes("--write")) writeFileSync(DOC, withTable(readFileSync(DOC, "utf8")))
  else console.log(versionsTable())
}
