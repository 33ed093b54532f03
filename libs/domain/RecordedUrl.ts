/**
 * URLs as a log records them: without the instance. Every instance of an app runs on its own
 * port, so an absolute URL in an event would make two runs of the same episode differ, and
 * carry the port into every dataset record made from it. A page on the instance is recorded
 * as its path and query (and fragment, for an app that routes by it: `sitePath`), and the
 * instance's origin inside a message (a refusal names the app's origins) as `{base}`, as
 * the observation's blobs already write it. What is not on the instance (`about:blank`,
 * another origin the app allows) is kept whole: it is not the port's to hide.
 *
 * @example
 * recordedUrl("http://127.0.0.1:4312/cart?x=1#top", "http://127.0.0.1:4312", false) // "/cart?x=1"
 * withBase("navigate refused: http://a.test/ is outside this app's origins (http://127.0.0.1:4312)", "http://127.0.0.1:4312")
 * // "navigate refused: http://a.test/ is outside this app's origins ({base})"
 */
import { sitePath } from "./LfTrajectory.ts"

/** What stands for the instance's origin in what is recorded. */
export const BASE = "{base}"

/** The origin of an http(s) URL (`http://host:port`), else null. */
export const instanceOrigin = (url: string | null): string | null => {
  if (url === null) return null
  try {
    const u = new URL(url)
    return u.protocol === "http:" || u.protocol === "https:" ? u.origin : null
  } catch {
    return null
  }
}

/** A URL on the instance `base` as path and query (fragment with `hashRouting`); anything else as it is. */
export const recordedUrl = (url: string | null, base: string | null, hashRouting: boolean): string | null =>
  url !== null && base !== null && instanceOrigin(url) === base ? sitePath(url, hashRouting) : url

/** `text` with the instance's origin written as `{base}` (never inside a longer port: `:4312` is not `:43120`'s). */
export const withBase = (text: string | null, base: string | null): string | null =>
  text === null || base === null || !text.includes(base)
    ? text
    : text.replace(new RegExp(`${base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![0-9])`, "g"), BASE)
