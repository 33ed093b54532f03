/**
 * The console's HTTP server: Bun.serve on a loopback address by default, pages rendered on
 * the server from the read models (caught up with the log before each page), screenshots
 * from the blob store, the console's two assets, and server-sent events while a run is
 * live. Nothing is written but the read models, which are a projection of the log. Every
 * request needs the per-launch token (Guard.ts): open `open` once, then the cookie carries it.
 *
 * @example
 * const { open } = yield* startConsole({ readModels, port: 4680 }) // needs EventStore, BlobStore, Scope
 */
import { Cause, Effect, Exit, Schema } from "effect"
import { BlobStore, isBlobHash } from "@core/blobstore"
import { joinLines, messageOf } from "@core/events"
import type { EventStore } from "@core/eventstore"
import { migrate } from "@core/projections"
import type { ReadModels } from "@core/projections"
import { randomBytes } from "node:crypto"
import { join } from "node:path"
import { hostPort, makeGuard, respond, textResponse } from "./Guard.ts"
import type { Guard } from "./Guard.ts"
import { layout, messagePage } from "./Layout.ts"
import { makeLiveStreams } from "./Live.ts"
import type { LiveStreams } from "./Live.ts"
import type { PageContext } from "./Page.ts"
import { makeReadModelSync } from "./ReadModelSync.ts"
import type { ReadModelSync } from "./ReadModelSync.ts"
import { matchRoute } from "./Routes.ts"

export { isLoopback } from "./Guard.ts"

/** The console could not start: a taken port, an address it cannot bind, a client that does not build. */
export class ConsoleError extends Schema.TaggedError<ConsoleError>()("ConsoleError", {
  message: Schema.String
}) {}

export interface ConsoleOptions {
  /** Opened by the caller; migrated here once, caught up before each page. */
  readonly readModels: ReadModels
  /** Default 127.0.0.1. */
  readonly host?: string
  /** Default 0: any free port. */
  readonly port?: number
}

export interface RunningConsole {
  /** Where the console is, without the token: every request to it without the cookie gets a 401. */
  readonly url: string
  /** The per-launch token; no page ever contains it. */
  readonly token: string
  /** `url` with the token: a browser that opens it once gets the cookie. */
  readonly open: string
  /** `name=value`: the Cookie header a client other than a browser sends. */
  readonly cookie: string
  /** Stops serving (also done when the scope closes); safe to call twice. */
  readonly stop: () => Promise<void>
}

const line = (e: unknown): string => joinLines(messageOf(e)).slice(0, 500)

const MAX_BODY_BYTES = 1 << 20

interface Asset {
  readonly body: string
  readonly type: string
}

/** The only files the server hands out, built once: no URL path ever reaches the filesystem. */
const buildAssets = Effect.tryPromise({
  try: async (): Promise<ReadonlyMap<string, Asset>> => {
    const dir = join(import.meta.dir, "client")
    const built = await Bun.build({ entrypoints: [join(dir, "console.ts")], target: "browser", format: "iife" })
    const js = built.outputs[0]
    if (!built.success || js === undefined) throw new Error(built.logs.map(String).join("; ") || "no output")
    return new Map([
      ["/assets/console.js", { body: await js.text(), type: "text/javascript; charset=utf-8" }],
      ["/assets/console.css", { body: await Bun.file(join(dir, "console.css")).text(), type: "text/css; charset=utf-8" }]
    ])
  },
  catch: (e) => new ConsoleError({ message: `the console's client script does not build: ${line(e)}` })
})

const startsWith = (bytes: Uint8Array, prefix: ReadonlyArray<number>, at = 0): boolean => prefix.every((b, i) => bytes[at + i] === b)

/** By the bytes, never by a name: a blob is whatever a run stored. */
export const sniffType = (bytes: Uint8Array): string => {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png"
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg"
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return "image/webp"
  return "text/plain; charset=utf-8"
}

const htmlResponse = (status: number, text: string): Response =>
  respond(text, status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })

const notFoundPage = (message: string): Response => htmlResponse(404, messagePage("Not found", message))

const blobResponse = (hash: string) =>
  Effect.gen(function* () {
    if (!isBlobHash(hash)) return textResponse(404, "not found: a blob is named by 64 lower-case hex characters")
    const bytes = yield* (yield* BlobStore).get(hash)
    return respond(bytes as Uint8Array<ArrayBuffer>, 200, {
      "content-type": sniffType(bytes),
      "cache-control": "private, max-age=31536000, immutable"
    })
  }).pipe(Effect.catchTag("BlobNotFound", () => Effect.succeed(textResponse(404, `not found: no blob ${hash}`))))

/** The form a POST carries, or null when it is not a form the what-if page can read. */
const readForm = async (req: Request): Promise<URLSearchParams | null> => {
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase()
  if (type !== "application/x-www-form-urlencoded") return null
  return new URLSearchParams(await req.text())
}

interface Handlers {
  readonly guard: Guard
  readonly assets: ReadonlyMap<string, Asset>
  readonly ctx: PageContext
  readonly sync: ReadModelSync
  readonly run: <A, E>(effect: Effect.Effect<A, E, EventStore | BlobStore>, signal: AbortSignal) => Promise<Exit.Exit<A, E>>
  readonly live: LiveStreams
}

/** A failed effect as a response: one escaped line, never a stack. */
const failure = (cause: Cause.Cause<unknown>, what: string): Response => {
  // The client went away: nobody reads the answer.
  if (Cause.hasInterruptsOnly(cause)) return textResponse(503, "interrupted")
  const reason = line(Cause.squash(cause))
  console.error(`console: ${what}: ${reason}`)
  return htmlResponse(500, messagePage("Error", `${what} failed: ${reason}`))
}

const pageResponse = async (h: Handlers, req: Request, url: URL, method: "GET" | "POST"): Promise<Response> => {
  let form = new URLSearchParams()
  if (method === "POST") {
    if (!h.guard.postAllowed(req)) return textResponse(403, "forbidden: a POST must come from the console's own page (Origin)")
    const read = await readForm(req)
    if (read === null) return textResponse(415, "unsupported: a POST is an application/x-www-form-urlencoded form")
    form = read
  }
  const matched = matchRoute(method, url.pathname)
  if (matched === null) return notFoundPage(`Nothing at ${url.pathname}.`)
  // Path params win: a form field must not change which run the page is about.
  const params = { ...Object.fromEntries(form), ...matched.params }
  const render = Effect.gen(function* () {
    const lag = yield* h.sync.catchUp
    const result = yield* matched.route.page(h.ctx, params, url.searchParams)
    if (result.kind === "not-found") return notFoundPage(result.message)
    const live = result.live === undefined ? {} : { live: result.live }
    return htmlResponse(200, layout({ title: result.title, body: result.body, lag, ...live }))
  })
  const exit = await h.run(render, req.signal)
  return Exit.isSuccess(exit) ? exit.value : failure(exit.cause, `${method} ${url.pathname}`)
}

const handle = async (h: Handlers, req: Request, server: Bun.Server<unknown>): Promise<Response> => {
  const url = h.guard.admit(req)
  if (url instanceof Response) return url
  const method = req.method === "HEAD" ? "GET" : req.method
  if (method === "POST") return pageResponse(h, req, url, "POST")
  if (method !== "GET") return textResponse(405, `method ${req.method} not allowed: the console only reads`)
  if (url.pathname === "/live") {
    // The stream stays open between events; the keep-alive comments are what keeps it.
    server.timeout(req, 0)
    return h.live.respond(req, url)
  }
  if (url.pathname.startsWith("/blob/")) {
    const exit = await h.run(blobResponse(url.pathname.slice("/blob/".length)), req.signal)
    return Exit.isSuccess(exit) ? exit.value : failure(exit.cause, `GET ${url.pathname}`)
  }
  if (url.pathname.startsWith("/assets/")) {
    const asset = h.assets.get(url.pathname)
    return asset === undefined
      ? textResponse(404, `not found: ${url.pathname}`)
      : respond(asset.body, 200, { "content-type": asset.type, "cache-control": "no-cache" })
  }
  return pageResponse(h, req, url, "GET")
}

const listen = (host: string, port: number, fetch: (req: Request, server: Bun.Server<unknown>) => Promise<Response>) =>
  Effect.try({
    try: () =>
      Bun.serve({
        hostname: host,
        port,
        // No error page with a stack; and a taken port must fail, which Bun's production mode otherwise shares.
        development: false,
        reusePort: false,
        // A what-if replays a whole run before its page answers.
        idleTimeout: 240,
        maxRequestBodySize: MAX_BODY_BYTES,
        fetch,
        error: (e) => textResponse(500, `internal error: ${line(e)}`)
      }),
    catch: (e) =>
      new ConsoleError({
        message:
          (e as { code?: string }).code === "EADDRINUSE"
            ? `port ${port} on ${host} is taken (another console?): choose another with --port`
            : `cannot listen on ${hostPort(host, port)}: ${line(e)}`
      })
  })

/** Starts serving; stops when the scope closes. */
export const startConsole = (options: ConsoleOptions) =>
  Effect.gen(function* () {
    const host = options.host ?? "127.0.0.1"
    const context = yield* Effect.context<EventStore | BlobStore>()
    const rm = options.readModels
    yield* migrate(rm)
    const assets = yield* buildAssets
    const token = randomBytes(32).toString("hex")
    const sync = makeReadModelSync(rm)
    const live = makeLiveStreams((effect) => Effect.runForkWith(context)(effect))
    const run = <A, E>(effect: Effect.Effect<A, E, EventStore | BlobStore>, signal: AbortSignal) =>
      Effect.runPromiseExitWith(context)(effect, { signal })
    const ctx: PageContext = { readModels: rm, runLog: sync.runLog }
    let handlers: Handlers | null = null
    const server = yield* listen(host, options.port ?? 0, (req, srv) =>
      handlers === null ? Promise.resolve(textResponse(503, "starting")) : handleSafely(handlers, req, srv)
    )
    const port = server.port ?? options.port ?? 0
    const guard = makeGuard({ host, port, token })
    handlers = { guard, assets, ctx, sync, run, live }
    let stopped: Promise<void> | null = null
    const stop = () => {
      stopped ??= (async () => {
        live.closeAll()
        await server.stop(true)
      })()
      return stopped
    }
    yield* Effect.addFinalizer(() => Effect.promise(stop))
    const url = `http://${hostPort(host, port)}`
    const running: RunningConsole = { url, token, open: `${url}/?token=${token}`, cookie: guard.cookie, stop }
    return running
  })

/** Whatever goes wrong in a handler is one line, with the security headers, never Bun's error page. */
const handleSafely = (h: Handlers, req: Request, server: Bun.Server<unknown>): Promise<Response> =>
  handle(h, req, server).catch((e) => {
    console.error(`console: ${req.method} ${req.url}: ${line(e)}`)
    return textResponse(500, `internal error: ${line(e)}`)
  })
