/**
 * What each part of CORE reads from a loaded config, in the shape it needs: the store
 * choice, the NATS outage limit, the Appium session, set-of-marks, the ingest limits. The
 * values were validated when the config was loaded, so these only convert.
 *
 * @example
 * const { maxBlobBytes } = ingestLimits(yield* loadConfig())
 */
import { parseByteSize } from "./Config.ts"
import type { ConfigValues, LoadedConfig } from "./Config.ts"

/**
 * What `chooseStore` (libs/eventstore/Select.ts) needs. A NATS URL counts as configured
 * when anything but the default set it — then an unreachable server is an error, not a
 * silent fall-back to the embedded store.
 */
export const storeSettings = (
  config: LoadedConfig
): {
  readonly store: ConfigValues["store"]
  readonly natsUrl: string
  readonly natsUrlConfigured: boolean
  readonly dataDir: string
} => ({
  store: config.values.store,
  natsUrl: config.values["nats.url"],
  natsUrlConfigured: config.sources["nats.url"] !== "default",
  dataDir: config.values.dataDir
})

/** How long NATS work waits for a lost server to come back before it fails (validated when loaded). */
export const natsOutageLimitMs = (config: LoadedConfig): number => Number(config.values["nats.outageLimitMs"])

/** The work queue's ack wait and deliveries per job (`workers.*`), as a driver sets them. */
export const queueSettings = (config: LoadedConfig): { readonly ackWaitMs: number; readonly maxDeliveries: number } => ({
  ackWaitMs: Number(config.values["workers.ackWaitMs"]),
  maxDeliveries: Number(config.values["workers.maxDeliveries"])
})

/** What `AppiumEnvironment` (libs/env-android) needs: the server and the capabilities as an object. */
export const androidSettings = (
  config: LoadedConfig
): {
  readonly appiumUrl: string
  readonly capabilities: Readonly<Record<string, unknown>>
} => ({
  appiumUrl: config.values["android.appiumUrl"],
  // Validated as a JSON object when the config was loaded.
  capabilities: JSON.parse(config.values["android.capabilities"]) as Record<string, unknown>
})

/**
 * Whether a run's episodes take set-of-marks images (`EnvironmentOptions.setOfMarks`):
 * `models.setOfMarks` when set, else on for the model policy only — the one policy that
 * reads pixels; the others (exploration, embedded, learned) read none, so their observations
 * stay as runs recorded them before marks existed.
 */
export const setOfMarksFor = (
  config: { readonly values: Pick<ConfigValues, "models.setOfMarks"> },
  policy: "exploration" | "embedded" | "learned" | "model"
): boolean => config.values["models.setOfMarks"] ?? policy === "model"

/** What the demo loader (libs/demos) needs: the read limits in bytes, validated when the config was loaded. */
export const ingestLimits = (config: LoadedConfig): { readonly maxBlobBytes: number; readonly maxDemoBytes: number } => ({
  maxBlobBytes: parseByteSize(config.values["ingest.maxBlobBytes"])!,
  maxDemoBytes: parseByteSize(config.values["ingest.maxDemoBytes"])!
})
