/**
 * The store a command writes to, chosen from the config (docs/architecture.md, "Stores"): says which on
 * stderr, because a user who finds their run missing must be able to see where it went.
 * The blob store follows the event store: Object Store beside JetStream, a directory
 * beside the embedded file.
 *
 * @example
 * const opened = yield* openStore({ flags }) // prints `store: nats … — <why>` on stderr
 * yield* program.pipe(Effect.provide(opened.layer))
 */
import { Effect, Layer } from "effect"
import { DirectoryBlobStore, JetStreamBlobStore } from "@core/blobstore"
import type { BlobStore, BlobStoreError } from "@core/blobstore"
import { ConfigError, loadConfig, natsCredentials, natsOutageLimitMs, storeSettings } from "@core/config"
import type { LoadedConfig } from "@core/config"
import { chooseStore, displayNatsUrl, EmbeddedStore, JetStreamStore } from "@core/eventstore"
import type { EventStore, NatsCredentials, StoreChoice, StoreUnavailable } from "@core/eventstore"
import { join } from "node:path"

export interface OpenedStore {
  readonly config: LoadedConfig
  readonly choice: StoreChoice
  readonly layer: Layer.Layer<EventStore | BlobStore, StoreUnavailable | BlobStoreError>
  /** What every NATS connection of the command authenticates with (never printed). */
  readonly credentials: NatsCredentials
}

export const describeChoice = (c: StoreChoice): string =>
  c.kind === "nats"
    ? `store: nats ${displayNatsUrl(c.url)}${c.version ? ` (nats-server ${c.version})` : ""} — ${c.reason}`
    : `store: embedded ${c.path} — ${c.reason}`

/** `flags`: the command's flags, which override the config file and the environment. */
export const openStore = (
  args: { readonly flags: Readonly<Record<string, string | number | boolean | undefined>> },
  options: { quiet?: boolean } = {}
) =>
  Effect.gen(function* () {
    const config = yield* loadConfig({ flags: args.flags })
    const found = natsCredentials(config)
    if ("missing" in found) return yield* new ConfigError({ message: found.missing })
    const credentials: NatsCredentials = found
    const choice = yield* chooseStore(storeSettings(config), credentials)
    if (!options.quiet) console.error(describeChoice(choice))
    const outageLimitMs = natsOutageLimitMs(config)
    const layer: Layer.Layer<EventStore | BlobStore, StoreUnavailable | BlobStoreError> =
      choice.kind === "nats"
        ? Layer.mergeAll(
            JetStreamStore.layer({ url: choice.url, credentials, outageLimitMs }),
            JetStreamBlobStore.layer({ url: choice.url, credentials, outageLimitMs })
          )
        : Layer.mergeAll(
            EmbeddedStore.layer({ path: choice.path }),
            DirectoryBlobStore.layer({ dir: join(config.values.dataDir, "blobs") })
          )
    return { config, choice, layer, credentials } satisfies OpenedStore
  })
