/**
 * Isolated databases and stores for the projection tests: a temp SQLite file, a fresh
 * PostgreSQL database (created in the server's `test` database's cluster, dropped after),
 * an embedded store file and a JetStream stream with its own prefix.
 */
import { connect } from "@nats-io/transport-node"
import { jetstreamManager } from "@nats-io/jetstream"
import type { Layer } from "effect"
import pg from "pg"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { EmbeddedStore, JetStreamStore } from "@core/eventstore"
import type { EventStore } from "@core/eventstore"

export const PG_ADMIN_URL = process.env.CORE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test"
export const NATS_URL = process.env.NATS_URL ?? "nats://127.0.0.1:4222"

let counter = 0
export const uniqueId = () => `${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`

export interface Fresh {
  readonly url: string
  readonly cleanup: () => Promise<void>
}

export interface FreshDb extends Fresh {
  readonly kind: "sqlite" | "postgres"
}

export const freshSqlite = async (): Promise<FreshDb> => {
  const dir = mkdtempSync(join(tmpdir(), "core-rm-"))
  return {
    kind: "sqlite",
    url: `sqlite:${join(dir, "projections.db")}`,
    cleanup: async () => rmSync(dir, { recursive: true, force: true })
  }
}

const admin = async <A>(f: (c: pg.Client) => Promise<A>): Promise<A> => {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL })
  await c.connect()
  try {
    return await f(c)
  } finally {
    await c.end()
  }
}

export const freshPostgres = async (): Promise<FreshDb> => {
  const name = `core_test_${uniqueId()
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, "")}`
  await admin((c) => c.query(`CREATE DATABASE ${name}`))
  const url = new URL(PG_ADMIN_URL)
  url.pathname = `/${name}`
  return {
    kind: "postgres",
    url: url.toString(),
    cleanup: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined)
  }
}

export const freshDb = (kind: "sqlite" | "postgres"): Promise<FreshDb> => (kind === "sqlite" ? freshSqlite() : freshPostgres())

export interface FreshStore {
  readonly kind: "embedded" | "nats"
  readonly layer: Layer.Layer<EventStore, unknown>
  /** What a child process needs to open the same store. */
  readonly spec: StoreSpec
  readonly cleanup: () => Promise<void>
}

export type StoreSpec =
  | { readonly kind: "embedded"; readonly path: string }
  | { readonly kind: "nats"; readonly url: string; readonly streamName: string; readonly prefix: string }

export const storeLayer = (spec: StoreSpec): Layer.Layer<EventStore, unknown> =>
  spec.kind === "embedded"
    ? EmbeddedStore.layer({ path: spec.path, pollMs: 10 })
    : JetStreamStore.layer({ url: spec.url, streamName: spec.streamName, prefix: spec.prefix })

export const freshEmbedded = async (): Promise<FreshStore> => {
  const dir = mkdtempSync(join(tmpdir(), "core-rm-log-"))
  const spec: StoreSpec = { kind: "embedded", path: join(dir, "events.db") }
  return { kind: "embedded", spec, layer: storeLayer(spec), cleanup: async () => rmSync(dir, { recursive: true, force: true }) }
}

export const freshJetStream = async (): Promise<FreshStore> => {
  const id = uniqueId()
  const spec: StoreSpec = { kind: "nats", url: NATS_URL, streamName: `CORE_RM_TEST_${id}`, prefix: `rm${id}` }
  return {
    kind: "nats",
    spec,
    layer: storeLayer(spec),
    cleanup: async () => {
      const nc = await connect({ servers: NATS_URL })
      await (await jetstreamManager(nc)).streams.delete(spec.streamName).catch(() => undefined)
      await nc.close()
    }
  }
}

export const freshStore = (kind: "embedded" | "nats"): Promise<FreshStore> => (kind === "embedded" ? freshEmbedded() : freshJetStream())
