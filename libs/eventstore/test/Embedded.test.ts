import { Database } from "bun:sqlite"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { EmbeddedStore } from "../EmbeddedStore.ts"
import { conformance } from "./conformance.ts"

conformance("embedded (bun:sqlite)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "core-es-"))
  const path = join(dir, "events.db")
  return {
    layer: EmbeddedStore.layer({ path, pollMs: 10 }),
    rawAppend: async (stream, body) => {
      const db = new Database(path)
      db.run("PRAGMA busy_timeout = 5000")
      db.query("INSERT INTO commits (stream, commit_id, body) VALUES (?, ?, ?)").run(stream, JSON.parse(body).commitId, body)
      db.close()
    },
    cleanup: async () => rmSync(dir, { recursive: true, force: true })
  }
})
