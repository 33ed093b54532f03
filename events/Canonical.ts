/**
 * Canonical JSON (RFC 8785, JCS) and sha256 digests.
 *
 * Replay compares decision events byte for byte, and ids are hashes of their inputs, so
 * both need one spelling of a value: keys sorted by UTF-16 code units, no whitespace,
 * numbers as ECMAScript prints them (which is what RFC 8785 specifies).
 *
 * @example
 * canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
import { createHash } from "node:crypto"

export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value === "boolean") return JSON.stringify(value)
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`canonical JSON has no spelling for ${value}`)
    return JSON.stringify(value)
  }
  if (typeof value === "string") return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(",")}]`
  if (typeof value === "object") {
    const entries = Object.keys(value as object)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
    return `{${entries.join(",")}}`
  }
  throw new TypeError(`canonical JSON has no spelling for a ${typeof value}`)
}

/** Lower-case hex sha256 of a string or bytes. */
export const sha256 = (input: string | Uint8Array): string => createHash("sha256").update(input).digest("hex")

/** sha256 of the canonical JSON of `value`: the digest of a structured value. */
export const digest = (value: unknown): string => sha256(canonicalJson(value))
