/**
 * `GET /live[?run=R]`: server-sent events, one `event: log` per new commit in the log
 * (under `run.R.>` when R is given) with `{position, runId}`, so a page showing a running
 * run can re-fetch itself. A comment every 15 s keeps proxies and the browser from timing
 * the stream out; a closed tab, a stopped console or a failed read ends it (the browser's
 * EventSource reconnects by itself).
 */
import { Effect, type Fiber, Stream } from "effect"
import { runOfStream } from "@core/events"
import { EventStore } from "@core/eventstore"
import { textResponse, respond } from "./Guard.ts"

const KEEP_ALIVE_MS = 15_000

export interface LiveStreams {
  readonly respond: (req: Request, url: URL) => Response
  /** Ends every open stream (the console is stopping). */
  readonly closeAll: () => void
}

export const makeLiveStreams = (fork: <A, E>(effect: Effect.Effect<A, E, EventStore>) => Fiber.Fiber<A, E>): LiveStreams => {
  const open = new Set<() => void>()
  const encoder = new TextEncoder()

  /** Sends each new commit; a failed read just ends (the stream closes with it, and the browser reconnects). */
  const follow = (filter: string | undefined, send: (text: string) => void) =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const head = yield* store.head()
      // Said once the start is fixed: anything appended from now on is sent.
      send(": following the log\n\n")
      let last = 0
      yield* Stream.runForEach(store.readAll({ from: head + 1, live: true, ...(filter === undefined ? {} : { filter }) }), (r) =>
        Effect.sync(() => {
          // The events of one commit share its position: one message per commit.
          if (r.position === last) return
          last = r.position
          const runId = r.event.runId ?? runOfStream(r.event.stream)
          send(`event: log\ndata: ${JSON.stringify({ position: r.position, runId })}\n\n`)
        })
      )
    }).pipe(Effect.ignore)

  const liveResponse = (req: Request, url: URL): Response => {
    const run = url.searchParams.get("run")
    if (run !== null && !/^[A-Za-z0-9_-]+$/.test(run)) return textResponse(404, "not found: run ids are letters, digits, '-' and '_'")
    const filter = run === null || run === "" ? undefined : `run.${run}.>`
    let close = () => {}
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        let closed = false
        const send = (text: string) => {
          if (closed) return
          try {
            controller.enqueue(encoder.encode(text))
          } catch {
            close()
          }
        }
        const fiber = fork(follow(filter, send))
        const keepAlive = setInterval(() => send(": keep-alive\n\n"), KEEP_ALIVE_MS)
        close = () => {
          if (closed) return
          closed = true
          clearInterval(keepAlive)
          open.delete(close)
          fiber.interruptUnsafe()
          try {
            controller.close()
          } catch {
            // Already closed by the client going away.
          }
        }
        open.add(close)
        // A read that ends (the store went away) ends the stream; the browser reconnects.
        fiber.addObserver(() => close())
      },
      cancel() {
        close()
      }
    })
    req.signal.addEventListener("abort", () => close())
    return respond(body, 200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" })
  }

  return {
    respond: liveResponse,
    closeAll: () => {
      for (const close of [...open]) close()
    }
  }
}
