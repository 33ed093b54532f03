/**
 * Images in model requests. A `ModelRequest.body` is canonical and digested, so it names an
 * image by its sha256 only (an `image_ref` content part): the digest, the `ModelCalled`
 * event and replay never need the bytes. Only the live client, just before sending, swaps
 * each reference for an OpenAI `image_url` part carrying a data: URL.
 *
 * @example
 * const content = [{ type: "text", text: "The current screen:" }, imageRef(screenshotHash)]
 */
import { Buffer } from "node:buffer"
import { Effect, Predicate } from "effect"
import { messageOf, oneLine, sha256 } from "@core/events"

/** A content part naming an image blob by hash; what the canonical request body holds. */
export interface ImageRef {
  readonly type: "image_ref"
  readonly sha256: string
  readonly mime: string
}

export const imageRef = (hash: string, mime = "image/png"): ImageRef => ({ type: "image_ref", sha256: hash, mime })

/** Fetches an image's bytes by its sha256 (e.g. from the blob store). */
export type ResolveImage = (sha256: string) => Effect.Effect<Uint8Array, unknown>

const isImageRef = (value: unknown): value is ImageRef =>
  Predicate.isObject(value) && value.type === "image_ref" && typeof value.sha256 === "string"

const refsIn = (value: unknown, found: Map<string, ImageRef>): void => {
  if (isImageRef(value)) {
    found.set(value.sha256, value)
  } else if (Array.isArray(value)) {
    for (const item of value) refsIn(item, found)
  } else if (Predicate.isObject(value)) {
    for (const item of Object.values(value)) refsIn(item, found)
  }
}

/** The image hashes a body refers to, in order of first mention. */
export const imageRefsOf = (body: unknown): ReadonlyArray<ImageRef> => {
  const found = new Map<string, ImageRef>()
  refsIn(body, found)
  return [...found.values()]
}

const replace = (value: unknown, urls: ReadonlyMap<string, string>): unknown => {
  if (isImageRef(value)) return { type: "image_url", image_url: { url: urls.get(value.sha256)! } }
  if (Array.isArray(value)) return value.map((item) => replace(item, urls))
  if (Predicate.isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replace(v, urls)]))
  return value
}

/**
 * The body as sent: every `image_ref` replaced by an `image_url` data: URL. Fails with a
 * one-line reason when an image cannot be had, or when its bytes no longer hash to the
 * name the digest recorded (the server would see another image than the log says).
 */
export const inlineImages = (body: unknown, resolve: ResolveImage | undefined): Effect.Effect<unknown, string> =>
  Effect.gen(function* () {
    const refs = imageRefsOf(body)
    if (refs.length === 0) return body
    const urls = new Map<string, string>()
    for (const ref of refs) {
      const name = `image ${ref.sha256.slice(0, 12)}`
      if (resolve === undefined) return yield* Effect.fail(`${name}: the client has no resolveImage to fetch it`)
      const bytes = yield* resolve(ref.sha256).pipe(
        Effect.mapError((cause) => `${name} unavailable: ${oneLine(messageOf(cause), 200) || "unknown error"}`)
      )
      const actual = sha256(bytes)
      if (actual !== ref.sha256) return yield* Effect.fail(`${name}: its bytes hash to ${actual.slice(0, 12)}`)
      const mime = typeof ref.mime === "string" && ref.mime !== "" ? ref.mime : "image/png"
      urls.set(ref.sha256, `data:${mime};base64,${Buffer.from(bytes).toString("base64")}`)
    }
    return replace(body, urls)
  })
