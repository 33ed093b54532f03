/**
 * The live `Models` layer: an OpenAI-compatible chat-completions server (vLLM, llama.cpp,
 * Ollama, OpenAI, …). Every call — answered or failed for good — becomes a `ModelCalled`
 * event through `record` before the caller sees the outcome, so replay can answer the same
 * call from the log without a server, and fails where the live call failed.
 * Images travel by hash in the request (and the event); only the bytes sent are inlined.
 *
 * @example
 * const server = modelOptionsFromConfig(config) // null: no server configured, use embedded backends
 * const layer = ModelClient.layer({ ...server, runId, record: (event) => store.append([event]),
 *   resolveImage: (hash) => blobs.get(hash) })
 */
import { Clock, DateTime, Duration, Effect, Layer, Schedule, Schema } from "effect"
import { ModelCalled, makeEvent, messageOf, oneLine, runStream, sha256 } from "@core/events"
import type { EventOf } from "@core/events"
import { ModelCallFailed, Models, requestDigest } from "@core/engine"
import type { ModelAnswer, ModelRequest } from "@core/engine"
import { scrubSecrets, secretEnvNames, secretsIn } from "@core/config"
import type { ConfigValues } from "@core/config"
import { inlineImages } from "./Images.ts"
import type { ResolveImage } from "./Images.ts"

export type ModelCalledEvent = EventOf<typeof ModelCalled>

/** Where the model server is: what `core.config.json` says. */
export interface ModelServer {
  /** Including any `/v1`: the client posts to `{baseUrl}/chat/completions`. */
  readonly baseUrl: string
  /** Sent when a request names no model (an empty `request.model`). */
  readonly model: string
  /** The NAME of the environment variable holding the API key; the key itself is read per call. */
  readonly apiKeyEnv: string
  /**
   * NAMES of further variables holding secrets (the config's `*Env` keys). Their values,
   * read per call like the key, are scrubbed from everything recorded: a server may echo
   * the request's headers, or a prompt may carry a secret, into its answer.
   */
  readonly secretEnvs?: ReadonlyArray<string>
}

export interface ModelClientOptions<E = never> extends ModelServer {
  /** Per attempt, covering the whole response body. Default 60 s. */
  readonly timeoutMs?: number
  /** Further attempts after a retryable failure (network, timeout, 429, 5xx). Default 3. */
  readonly retries?: number
  /** First backoff delay; doubles per retry, capped at 10 s. Default 250 ms. */
  readonly retryBaseMs?: number
  /** The run whose log receives the `ModelCalled` events. */
  readonly runId: string
  /** Appends the event to the log. Its failure fails the call (as a defect: see `ModelRecordFailed`). */
  readonly record: (event: ModelCalledEvent) => Effect.Effect<void, E>
  /** Where the API key is looked up; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /**
   * The bytes of an image a request names by hash (`image_ref`), e.g. from the blob store.
   * Without it, a request with an image fails (recorded, as any failed call).
   */
  readonly resolveImage?: ResolveImage
}

export const DEFAULT_TIMEOUT_MS = 60_000
export const DEFAULT_RETRIES = 3
export const DEFAULT_RETRY_BASE_MS = 250
const MAX_DELAY_MS = 10_000

/**
 * The call's outcome could not be written to the log. It is a defect, not a
 * `ModelCallFailed`: a decider that treated it as the model's failure would decide
 * something replay could never re-derive, since the log holds no record of the call.
 */
export class ModelRecordFailed extends Schema.TaggedError<ModelRecordFailed>()("ModelRecordFailed", {
  causationId: Schema.String,
  callIndex: Schema.Number,
  cause: Schema.Defect()
}) {
  override get message() {
    return `model call ${this.callIndex} of ${this.causationId.slice(0, 12)}: recording ModelCalled failed: ${oneLine(messageOf(this.cause), 240)}`
  }
}

/** One attempt's failure; `retryable` decides whether another attempt follows. */
class AttemptFailed extends Schema.TaggedError<AttemptFailed>()("AttemptFailed", {
  reason: Schema.String,
  retryable: Schema.Boolean,
  /** The server's `Retry-After`, honoured (up to the cap) instead of a shorter backoff. */
  retryAfterMs: Schema.NullOr(Schema.Number)
}) {}

const Count = Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0))
const optionalNullable = <S extends Schema.Top>(s: S) => Schema.optional(Schema.NullOr(s))

/** The part of a `chat.completion` response the client reads; other fields are ignored. */
const Completion = Schema.Struct({
  choices: Schema.NonEmptyArray(
    Schema.Struct({
      message: Schema.Struct({ content: optionalNullable(Schema.String) }),
      finish_reason: optionalNullable(Schema.String)
    })
  ),
  usage: optionalNullable(
    Schema.Struct({
      prompt_tokens: optionalNullable(Schema.Unknown),
      completion_tokens: optionalNullable(Schema.Unknown)
    })
  )
})
const decodeCompletion = Schema.decodeUnknownEffect(Completion)
const isCount = Schema.is(Count)

const describe = (cause: unknown): string => oneLine(messageOf(cause), 240) || "unknown error"

/** Seconds or an HTTP date; null when absent or unreadable. */
const retryAfter = (header: string | null, now: number): number | null => {
  if (header === null) return null
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(header)
  return Number.isFinite(at) ? Math.max(0, at - now) : null
}

/** The stream a run's model call for this cause is logged on: what the driver expects of a worker's calls too. */
export const modelCallStream = (runId: string, causationId: string): string =>
  // Causation ids are event ids (hex); anything else is hashed so the subject token stays valid.
  runStream(runId, "model", (/^[0-9a-f]{16}/.test(causationId) ? causationId : sha256(causationId)).slice(0, 16))

/** The `Models` service talking to the server; every call is recorded through `options.record`. */
export const make = <E>(options: ModelClientOptions<E>): Models["Service"] => {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const retries = options.retries ?? DEFAULT_RETRIES
  const baseMs = options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS

  const schedule = Schedule.min([Schedule.exponential(Duration.millis(baseMs)), Schedule.spaced(Duration.millis(MAX_DELAY_MS))]).pipe(
    Schedule.jittered,
    Schedule.setInputType<AttemptFailed>(),
    Schedule.modifyDelay(({ duration, input }) =>
      Effect.succeed(
        input.retryAfterMs === null
          ? duration
          : Duration.millis(Math.min(MAX_DELAY_MS, Math.max(Duration.toMillis(duration), input.retryAfterMs)))
      )
    )
  )

  const attempt = (body: string, apiKey: string | undefined, scrub: (text: string) => string) => {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" }
    if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`
    return Effect.tryPromise({
      try: async (signal) => {
        const response = await fetch(url, { method: "POST", headers, body, signal })
        return {
          status: response.status,
          statusText: response.statusText,
          retryAfter: response.headers.get("retry-after"),
          text: await response.text()
        }
      },
      catch: (cause) => new AttemptFailed({ reason: `network error: ${scrub(describe(cause))}`, retryable: true, retryAfterMs: null })
    }).pipe(
      Effect.timeoutOrElse({
        duration: Duration.millis(timeoutMs),
        orElse: () => Effect.fail(new AttemptFailed({ reason: `timed out after ${timeoutMs} ms`, retryable: true, retryAfterMs: null }))
      }),
      Effect.flatMap((r) => {
        if (r.status >= 200 && r.status < 300) return Effect.succeed(r.text)
        const retryable = r.status === 429 || r.status >= 500
        const detail = oneLine(scrub(r.text), 160)
        return Effect.fail(
          new AttemptFailed({
            reason: `HTTP ${r.status}${r.statusText ? ` ${r.statusText}` : ""}${detail ? `: ${detail}` : ""}`,
            retryable,
            retryAfterMs: retryable ? retryAfter(r.retryAfter, Date.now()) : null
          })
        )
      })
    )
  }

  const parse = (text: string): Effect.Effect<ModelAnswer, AttemptFailed> =>
    Effect.try({ try: () => JSON.parse(text) as unknown, catch: (cause) => cause }).pipe(
      Effect.flatMap((json) => decodeCompletion(json)),
      Effect.mapError(
        (cause) =>
          // A well-formed HTTP answer with a body the client cannot read will not improve by asking again.
          new AttemptFailed({ reason: `malformed completion: ${describe(cause)}`, retryable: false, retryAfterMs: null })
      ),
      Effect.map((c): ModelAnswer => {
        const choice = c.choices[0]
        const usage = c.usage ?? {}
        return {
          text: choice.message.content ?? "",
          finishReason: choice.finish_reason ?? "unknown",
          usage: {
            inputTokens: isCount(usage.prompt_tokens) ? usage.prompt_tokens : null,
            outputTokens: isCount(usage.completion_tokens) ? usage.completion_tokens : null
          }
        }
      })
    )

  const complete = (request: ModelRequest) =>
    Effect.gen(function* () {
      const model = request.model !== "" ? request.model : options.model
      const env = options.env ?? process.env
      const key = env[options.apiKeyEnv]
      const apiKey = key === undefined || key === "" ? undefined : key
      // The log is immutable: a secret a server quotes back (its error, or an answer echoing
      // the headers) must be gone before the event is made. The key is scrubbed at any length.
      const secrets = [...(apiKey === undefined ? [] : [apiKey]), ...secretsIn(options.secretEnvs ?? [], env)]
      const scrub = (text: string) => scrubSecrets(text, secrets)

      let attempts = 0
      const started = yield* Clock.currentTimeMillis
      // Images are resolved once, before any attempt; the event keeps the body's hash form.
      const outcome = yield* inlineImages(request.body, options.resolveImage).pipe(
        Effect.mapError((reason) => new AttemptFailed({ reason, retryable: false, retryAfterMs: null })),
        Effect.flatMap((body) => {
          const payload = JSON.stringify({ ...(model !== "" ? { model } : {}), ...(body as object) })
          return Effect.suspend(() => {
            attempts++
            return Effect.flatMap(attempt(payload, apiKey, scrub), parse)
          }).pipe(Effect.retry({ schedule, times: retries, while: (e) => e.retryable }))
        }),
        // The caller gets the scrubbed answer too: replay serves the recorded one, and the two must agree.
        Effect.map((answer): ModelAnswer => ({ ...answer, text: scrub(answer.text), finishReason: scrub(answer.finishReason) })),
        Effect.result
      )
      const latencyMs = Math.max(0, (yield* Clock.currentTimeMillis) - started)

      const error =
        outcome._tag === "Failure"
          ? scrub(attempts === 0 ? outcome.failure.reason : `${outcome.failure.reason} (${attempts} attempt${attempts === 1 ? "" : "s"})`)
          : null
      const event = makeEvent(ModelCalled, {
        stream: modelCallStream(options.runId, request.causationId),
        runId: options.runId,
        causationId: request.causationId,
        ordinal: request.callIndex,
        recordedAt: DateTime.formatIso(yield* DateTime.now),
        data: {
          callIndex: request.callIndex,
          model: scrub(model),
          purpose: request.purpose,
          requestDigest: requestDigest(request),
          requestBlob: null,
          prompt: { name: request.prompt.name, version: request.prompt.version, digest: request.prompt.digest },
          response: outcome._tag === "Success" ? outcome.success : null,
          error,
          latencyMs
        }
      })
      yield* options
        .record(event)
        .pipe(
          Effect.catch((cause) =>
            Effect.die(new ModelRecordFailed({ causationId: request.causationId, callIndex: request.callIndex, cause }))
          )
        )
      if (outcome._tag === "Success") return outcome.success
      return yield* new ModelCallFailed({ causationId: request.causationId, callIndex: request.callIndex, reason: error ?? "failed" })
    })

  return Models.of({ complete })
}

/** `Models` answered by the server in `options`. */
export const layer = <E>(options: ModelClientOptions<E>): Layer.Layer<Models> => Layer.succeed(Models, make(options))

/**
 * The server the config names, or null when `models.baseUrl` is unset (the caller then
 * uses its embedded backends). An unset `models.model` becomes "", which most local
 * servers accept: the field is then left out of the request.
 */
export const modelOptionsFromConfig = (config: {
  /** The whole of the config's values: every `*Env` key among them names a secret to scrub. */
  readonly values: Pick<ConfigValues, "models.baseUrl" | "models.model" | "models.apiKeyEnv">
}): ModelServer | null => {
  const baseUrl = config.values["models.baseUrl"]
  if (baseUrl === null) return null
  return {
    baseUrl,
    model: config.values["models.model"] ?? "",
    apiKeyEnv: config.values["models.apiKeyEnv"],
    secretEnvs: secretEnvNames(config.values)
  }
}
