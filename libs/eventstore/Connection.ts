/**
 * The one reconnect policy for every long-lived NATS connection the process holds (event
 * store, blob store, dataset follow): reconnect forever with short waits, so an outage
 * pauses work rather than closing the connection under it. How long work waits for the
 * server to come back is each operation's business (`throughOutages`, bounded by the
 * configured outage limit); the connection itself never gives up.
 *
 * Credentials never travel in the URL (it is printed and recorded): they come from the
 * environment variables the config names (`natsCredentials` in @core/config).
 *
 * @example
 * const nc = yield* Effect.tryPromise(() => connectNats(url, credentials, "core"))
 */
import { readFileSync } from "node:fs"
import { connect, credsAuthenticator } from "@nats-io/transport-node"
import type { ConnectionOptions, NatsConnection } from "@nats-io/transport-node"
import { redactUrl } from "@core/config"
import { Effect, Schedule } from "effect"

export interface NatsCredentials {
  readonly user?: string | undefined
  readonly password?: string | undefined
  readonly token?: string | undefined
  /** Path of a `.creds` file (user JWT and nkey seed). */
  readonly credsFile?: string | undefined
}

/** How long an operation waits for a lost server to come back before it fails: 10 minutes. */
export const DEFAULT_OUTAGE_LIMIT_MS = 600_000

/** How often an operation that timed out on a live connection is tried before it fails. */
export const TRIES_WHILE_CONNECTED = 4

/**
 * A NATS URL as it may be printed: userinfo (a user and password, or a bare token — NATS
 * reads `nats://tok@host` as a token) and secret query parameters become `***`.
 */
export const displayNatsUrl = (url: string): string => redactUrl(url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, "$1***@"))

/** True when the URL carries credentials in its userinfo. */
export const urlHasCredentials = (url: string): boolean => /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url)

/** Thrown (never with the secret in it) when the URL or the credentials cannot be used. */
export class NatsCredentialsError extends Error {
  override readonly name = "NatsCredentialsError"
}

const authOptions = (credentials: NatsCredentials): Partial<ConnectionOptions> => {
  if (credentials.credsFile !== undefined) {
    let creds: Uint8Array
    try {
      creds = readFileSync(credentials.credsFile)
    } catch (e) {
      throw new NatsCredentialsError(
        `cannot read NATS creds file ${credentials.credsFile} (${(e as { code?: string }).code ?? "unreadable"})`
      )
    }
    return { authenticator: credsAuthenticator(creds) }
  }
  if (credentials.token !== undefined) return { token: credentials.token }
  if (credentials.user !== undefined) return { user: credentials.user, pass: credentials.password ?? "" }
  return {}
}

/**
 * Where a client that connects as `user` takes its replies: `_INBOX_<user>`, so a server can
 * let each user subscribe only to its own replies. Under the shared `_INBOX.>` a worker
 * could read every reply the server sends anyone: the driver's reads of the log, and the
 * jobs, nonces included, delivered to every other worker. A name that cannot be a subject
 * token keeps the client's default.
 */
export const inboxPrefixOf = (user: string): string | undefined => (/^[A-Za-z0-9_-]{1,64}$/.test(user) ? `_INBOX_${user}` : undefined)

/** The inbox prefix a connection with these credentials uses; undefined: the client's default `_INBOX`. */
export const inboxPrefixFor = (credentials: NatsCredentials): string | undefined =>
  // A creds file or a token names no user here: those keep the default inbox.
  credentials.credsFile !== undefined || credentials.token !== undefined || credentials.user === undefined
    ? undefined
    : inboxPrefixOf(credentials.user)

const inboxOptions = (credentials: NatsCredentials): Partial<ConnectionOptions> => {
  const prefix = inboxPrefixFor(credentials)
  return prefix === undefined ? {} : { inboxPrefix: prefix }
}

/**
 * The client options of every long-lived connection. The client's defaults (10 attempts,
 * 2 s apart) close the connection after a 20 s outage, and everything holding it fails for
 * good; here it reconnects until the process ends, a quarter to half a second apart.
 */
export const natsOptions = (url: string, credentials: NatsCredentials, name: string): ConnectionOptions => {
  if (urlHasCredentials(url)) {
    throw new NatsCredentialsError(
      `NATS URL ${displayNatsUrl(url)} carries credentials; put them in environment variables named by nats.userEnv and nats.passwordEnv (or nats.tokenEnv, nats.credsFileEnv)`
    )
  }
  return {
    servers: url,
    name,
    timeout: 3000,
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    reconnectJitter: 250,
    // noAsyncTraces: otherwise every request allocates two Errors for their stack traces,
    // a measurable share of an append's client work; errors are reported in one line anyway.
    noAsyncTraces: true,
    ...authOptions(credentials),
    ...inboxOptions(credentials)
  }
}

export const connectNats = (url: string, credentials: NatsCredentials, name: string): Promise<NatsConnection> =>
  Promise.resolve().then(() => connect(natsOptions(url, credentials, name)))

/** Whether the connection is between a disconnect and the next reconnect. */
export interface Link {
  readonly down: () => boolean
}

/** Follows the connection's status until it closes. */
export const watchLink = (nc: NatsConnection): Link => {
  let down = false
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect") down = true
      else if (s.type === "reconnect") down = false
    }
  })().catch(() => undefined)
  return { down: () => down }
}

/** Errors after which the same request may be sent again: the server did not answer or was away. */
export const isTransientNatsError = (e: unknown): boolean => {
  const name = (e as Error | null)?.name ?? ""
  const msg = (e as Error | null)?.message ?? ""
  return (
    /Timeout|NoResponders|ConnectionError|ClosedConnection|RequestError/i.test(name) ||
    /timeout|timed out|no responders|disconnect|closed|reconnect|503/i.test(msg)
  )
}

/** Back off from 100 ms to at most 2 s between tries. */
const backoff = Schedule.min([Schedule.exponential("100 millis", 1.5), Schedule.spaced("2 seconds")])

/**
 * Runs `op` again after a transient failure: for as long as the connection is down, up to
 * `outageLimitMs` in all; while it is up (a timeout under load), `tries` times at most.
 */
export const throughOutages = <A, E>(
  op: Effect.Effect<A, E>,
  o: { readonly link: Link; readonly outageLimitMs: number; readonly transient: (e: E) => boolean; readonly tries?: number }
): Effect.Effect<A, E> =>
  Effect.suspend(() => {
    let failedWhileUp = 0
    return Effect.retry(op, {
      schedule: backoff.pipe(Schedule.upTo({ duration: `${o.outageLimitMs} millis` })),
      while: (e: E) => o.transient(e) && (o.link.down() || ++failedWhileUp < (o.tries ?? TRIES_WHILE_CONNECTED))
    })
  })
