/**
 * Reads a MediaWiki instance's own state for evaluate.ts: its SQLite database (pages, their
 * latest revision's text and edit summary, categories, the move log, user preferences) and
 * PHP's request log (which page the browser viewed last). Read-only; MediaWiki keeps writing.
 *
 * @example
 * const wiki = openWiki("/tmp/core-mw-AbC123")
 * wiki.page("Tea Room")?.text
 * wiki.close()
 */
import { Database } from "bun:sqlite"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"

export interface Page {
  readonly id: number
  readonly title: string
  readonly text: string
  readonly redirect: boolean
  /** The latest revision's edit summary. */
  readonly summary: string
}

export interface Wiki {
  page(title: string): Page | undefined
  categories(title: string): ReadonlyArray<string>
  /** Move log entries of the page now or once titled `from`: the new title and the reason. */
  moves(from: string): ReadonlyArray<{ readonly to: string; readonly reason: string }>
  /** A user preference as stored (absent when the user kept the default). */
  preference(user: string, name: string): string | undefined
  close(): void
}

/** MediaWiki's database key of a main-namespace title: spaces as underscores, first letter upper case. */
export const dbKey = (title: string): string => {
  const t = title.trim().replace(/\s+/g, "_")
  return t.charAt(0).toUpperCase() + t.slice(1)
}

export const openWiki = (dir: string): Wiki => {
  const file = join(dir, "data", "wiki.sqlite")
  if (!existsSync(file)) throw new Error(`${file} is missing: not a live instance`)
  const db = new Database(file, { readonly: true })
  db.exec("PRAGMA busy_timeout = 5000")
  const text = (sql: string, ...params: Array<string | number>): string | undefined => {
    const row = db.query(sql).get(...params) as { v: string | null } | null
    return row?.v ?? undefined
  }
  return {
    page: (title) => {
      const row = db
        .query(
          `SELECT page_id AS id, CAST(page_title AS TEXT) AS title, page_is_redirect AS redirect, page_latest AS latest
           FROM page WHERE page_namespace = 0 AND page_title = ?`
        )
        .get(dbKey(title)) as { id: number; title: string; redirect: number; latest: number } | null
      if (!row) return undefined
      // The main slot's content address is "tt:<text id>" (MediaWiki's text table).
      const address = text(
        `SELECT CAST(c.content_address AS TEXT) AS v FROM slots s JOIN content c ON c.content_id = s.slot_content_id
         WHERE s.slot_revision_id = ? ORDER BY s.slot_role_id LIMIT 1`,
        row.latest
      )
      const textId = Number(/^tt:(\d+)$/.exec(address ?? "")?.[1] ?? Number.NaN)
      const body = text("SELECT CAST(old_text AS TEXT) AS v FROM text WHERE old_id = ?", textId) ?? ""
      // Edit summaries: revision.rev_comment_id, or the migration table MediaWiki 1.39 still writes.
      const summary =
        text(
          `SELECT CAST(c.comment_text AS TEXT) AS v FROM comment c
           WHERE c.comment_id = (SELECT rev_comment_id FROM revision WHERE rev_id = ?)
              OR c.comment_id = (SELECT revcomment_comment_id FROM revision_comment_temp WHERE revcomment_rev = ?)
           ORDER BY c.comment_id DESC LIMIT 1`,
          row.latest,
          row.latest
        ) ?? ""
      return { id: row.id, title: row.title.replaceAll("_", " "), text: body, redirect: row.redirect === 1, summary }
    },
    categories: (title) =>
      (
        db
          .query(
            `SELECT CAST(cl.cl_to AS TEXT) AS v FROM categorylinks cl JOIN page p ON p.page_id = cl.cl_from
             WHERE p.page_namespace = 0 AND p.page_title = ?`
          )
          .all(dbKey(title)) as Array<{ v: string }>
      ).map((r) => r.v.replaceAll("_", " ")),
    moves: (from) =>
      (
        db
          .query(
            `SELECT CAST(l.log_params AS TEXT) AS params, CAST(c.comment_text AS TEXT) AS reason
             FROM logging l JOIN comment c ON c.comment_id = l.log_comment_id
             WHERE l.log_type = 'move' AND l.log_namespace = 0 AND l.log_title = ? ORDER BY l.log_id`
          )
          .all(dbKey(from)) as Array<{ params: string; reason: string }>
      ).map((r) => ({ to: movedTo(r.params), reason: r.reason ?? "" })),
    preference: (user, name) =>
      text(
        `SELECT CAST(up.up_value AS TEXT) AS v FROM user_properties up JOIN user u ON u.user_id = up.up_user
         WHERE u.user_name = ? AND up.up_property = ?`,
        user,
        name
      ),
    close: () => db.close()
  }
}

/** The target title of a move log entry (its params are PHP-serialised: `4::target` → "Lost and Found"). */
const movedTo = (params: string): string => {
  const m = /s:\d+:"4::target";s:\d+:"([^"]*)"/.exec(params)
  return (m?.[1] ?? "").replaceAll("_", " ")
}

/**
 * The title of the last article page the browser was served (200) or told was unchanged (304) according to PHP's request
 * log: `GET /index.php/Title` or `GET /index.php?title=Title` with no action other than view.
 * Special pages, load.php, api.php and static files are not page views.
 */
export const lastPageView = (dir: string): string | undefined => {
  const file = join(dir, ".core", "server.log")
  if (!existsSync(file)) return undefined
  let last: string | undefined
  for (const line of readFileSync(file, "utf8").split("\n")) {
    // A page shown again may be revalidated rather than sent: the browser shows it all the same.
    const m = /\[(?:200|304)\]: GET (\/index\.php\S*)/.exec(line)
    if (!m) continue
    const url = new URL(m[1]!, "http://x")
    const action = url.searchParams.get("action")
    if (action !== null && action !== "view") continue
    let raw = url.searchParams.get("title")
    if (url.pathname.startsWith("/index.php/")) {
      try {
        raw = decodeURIComponent(url.pathname.slice("/index.php/".length))
      } catch {
        continue
      }
    }
    if (!raw) continue
    const title = raw.replaceAll("_", " ")
    if (/^(Special|Category|User|Talk|File|Help|Template|MediaWiki)( talk)?:/i.test(title)) continue
    last = title
  }
  return last
}
