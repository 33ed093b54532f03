/**
 * Which store a command uses (docs/architecture.md, "Stores"): `--store embedded|nats`
 * if given; else NATS at `NATS_URL` if set; else 127.0.0.1:4222 if it answers with
 * JetStream; else the embedded file. A NATS the user *asked for* that does not answer is
 * an error, never a silent fallback: they would otherwise write a run to a log they are
 * not looking at.
 */
import { connect } from "@nats-io/transport-node"
import { Effect } from "effect"
import { join } from "node:path"
import { displayNatsUrl, natsOptions } from "./Connection.ts"
import type { NatsCredentials } from "./Connection.ts"
import { StoreUnavailable } from "./EventStore.ts"

export const DEFAULT_NATS_URL = "nats://127.0.0.1:4222"

export interface NatsProbe {
  readonly url: string
  readonly reachable: boolean
  readonly jetstream: boolean
  readonly version: string | null
  /** Why it is not usable, in one line. */
  readonly error: string | null
}

/** Connects once with a short timeout and no reconnects, and reports what answered. */
export const probeNats = (url: string, timeoutMs = 1500, credentials: NatsCredentials = {}): Effect.Effect<NatsProbe> =>
  Effect.promise(async () => {
    try {
      const nc = await connect({
        ...natsOptions(url, credentials, "core-probe"),
        timeout: timeoutMs,
        reconnect: false,
        maxReconnectAttempts: 0
      })
      const info = nc.info
      await nc.close()
      const jetstream = info?.jetstream === true
      return {
        url,
        reachable: true,
        jetstream,
        version: (info as { version?: string } | undefined)?.version ?? null,
        error: jetstream ? null : "JetStream is not enabled on this server (start nats-server with -js)"
      }
    } catch (e) {
      return { url, reachable: false, jetstream: false, version: null, error: natsErrorLine(e) }
    }
  })

export const natsErrorLine = (e: unknown): string => {
  const text = e instanceof Error ? e.message : String(e)
  const code = (e as { code?: string } | null)?.code
  return `${text}${code && !text.includes(code) ? ` (${code})` : ""}`.replace(/\s*\n\s*/g, "; ")
}

export interface StoreSettings {
  /** "auto" (default), "embedded" or "nats". */
  readonly store: "auto" | "embedded" | "nats"
  readonly natsUrl: string
  /** True when the NATS URL was configured (file, env or flag) rather than the default. */
  readonly natsUrlConfigured: boolean
  readonly dataDir: string
}

export type StoreChoice =
  | { readonly kind: "nats"; readonly url: string; readonly version: string | null; readonly reason: string }
  | { readonly kind: "embedded"; readonly path: string; readonly reason: string }

export const embeddedPath = (dataDir: string): string => join(dataDir, "events.db")

export const chooseStore = (settings: StoreSettings, credentials: NatsCredentials = {}): Effect.Effect<StoreChoice, StoreUnavailable> =>
  Effect.gen(function* () {
    const embedded = (reason: string): StoreChoice => ({ kind: "embedded", path: embeddedPath(settings.dataDir), reason })
    if (settings.store === "embedded") return embedded("--store embedded")
    const asked = settings.store === "nats" || settings.natsUrlConfigured
    const probe = yield* probeNats(settings.natsUrl, undefined, credentials)
    if (probe.reachable && probe.jetstream) {
      return {
        kind: "nats" as const,
        url: settings.natsUrl,
        version: probe.version,
        reason:
          settings.store === "nats"
            ? "--store nats"
            : settings.natsUrlConfigured
              ? "configured NATS URL"
              : "NATS with JetStream answered on the default URL"
      }
    }
    if (asked) return yield* new StoreUnavailable({ store: displayNatsUrl(settings.natsUrl), reason: probe.error ?? "no answer" })
    return embedded(`no NATS with JetStream at ${displayNatsUrl(settings.natsUrl)}`)
  })
