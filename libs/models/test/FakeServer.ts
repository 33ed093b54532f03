/**
 * A real HTTP server in the shape of an OpenAI-compatible one, answering
 * `POST /v1/chat/completions` from recorded completions (fixtures/completions.json), so
 * the client is tested through fetch, headers, status codes and timeouts for real.
 */
import { Effect } from "effect"
import type { CoreEvent } from "@core/events"
import type { ModelCalledEvent } from "../mod.ts"
import fixtures from "./fixtures/completions.json" with { type: "json" }

export type Fixture = Exclude<keyof typeof fixtures, "_comment">

export const completion = (name: Fixture): Response => Response.json(fixtures[name])

export const fixtureText = (name: Fixture): string => fixtures[name].choices[0]!.message.content

export interface Seen {
  readonly authorization: string | null
  /** As sent: `content` is a string, or parts (text, `image_url`) for a multimodal message. */
  readonly body: {
    readonly model?: string
    readonly messages: Array<{ role: string; content: string | Array<Record<string, unknown>> }>
    readonly [k: string]: unknown
  }
}

export interface FakeServer {
  /** Ends in `/v1`, as a configured `models.baseUrl` would. */
  readonly baseUrl: string
  readonly seen: Array<Seen>
  stop(): void
}

/** `respond(seen, n)` answers the n-th (0-based) completion request. */
export const fakeServer = (respond: (seen: Seen, n: number) => Response | Promise<Response>): FakeServer => {
  const seen: Array<Seen> = []
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    // The timeout test's handler never answers; Bun's own idle timeout must not end it first.
    idleTimeout: 0,
    fetch: async (request) => {
      const url = new URL(request.url)
      if (request.method !== "POST" || url.pathname !== "/v1/chat/completions") return new Response("not found", { status: 404 })
      const entry: Seen = { authorization: request.headers.get("authorization"), body: (await request.json()) as Seen["body"] }
      seen.push(entry)
      return respond(entry, seen.length - 1)
    }
  })
  return { baseUrl: `http://127.0.0.1:${server.port}/v1`, seen, stop: () => void server.stop(true) }
}

/** A `record` callback collecting the events, as the event store would receive them. */
export const recorder = () => {
  const events: Array<ModelCalledEvent> = []
  return {
    events,
    asLog: (): ReadonlyArray<CoreEvent> => events,
    record: (event: ModelCalledEvent) => Effect.sync(() => void events.push(event))
  }
}
