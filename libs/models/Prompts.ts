/**
 * Prompts as versioned files, `prompts/<name>.v<N>.md`. A changed prompt is a new file,
 * never an edit: `ModelCalled` records the prompt's name, version and digest, so a replay
 * can tell "the prompt changed" apart from "the input changed", and an old run's prompt
 * can still be read.
 *
 * @example
 * const prompt = yield* loadPrompt("key-steps")          // the highest version
 * const text = yield* renderPrompt(prompt, { instruction, descriptions })
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Schema } from "effect"
import { sha256 } from "@core/events"

export interface Prompt {
  readonly name: string
  /** The file's version number as a string ("1" for `name.v1.md`). */
  readonly version: string
  /** sha256 of the file's text. */
  readonly digest: string
  readonly text: string
}

/** The shipped prompts. */
export const PROMPTS_DIR = join(import.meta.dir, "prompts")

export class PromptNotFound extends Schema.TaggedError<PromptNotFound>()("PromptNotFound", {
  name: Schema.String,
  version: Schema.NullOr(Schema.String),
  dir: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `prompt ${this.name}${this.version === null ? "" : ` v${this.version}`} in ${this.dir}: ${this.reason}`
  }
}

export class PromptVariableMissing extends Schema.TaggedError<PromptVariableMissing>()("PromptVariableMissing", {
  prompt: Schema.String,
  missing: Schema.Array(Schema.String)
}) {
  override get message() {
    return `prompt ${this.prompt} needs ${this.missing.map((v) => `{{${v}}}`).join(", ")}, which ${this.missing.length === 1 ? "was" : "were"} not given`
  }
}

const FILE = /^(.+)\.v(\d+)\.md$/

/** The prompt `name` at `version` ("3" or "v3"), or its highest version. */
export const loadPrompt = (
  name: string,
  options: { readonly version?: string; readonly dir?: string } = {}
): Effect.Effect<Prompt, PromptNotFound> =>
  Effect.try({
    try: () => {
      const dir = options.dir ?? PROMPTS_DIR
      const versions = readdirSync(dir)
        .map((file) => FILE.exec(file))
        .filter((m): m is RegExpExecArray => m !== null && m[1] === name)
        .map((m) => ({ file: m[0], version: String(Number(m[2])) }))
        .sort((a, b) => Number(b.version) - Number(a.version))
      const wanted = options.version?.replace(/^v/, "")
      const chosen = wanted === undefined ? versions[0] : versions.find((v) => v.version === String(Number(wanted)))
      if (chosen === undefined) {
        const known = versions.map((v) => `v${v.version}`).join(", ")
        throw new Error(known ? `no such version (have ${known})` : "no such prompt")
      }
      const text = readFileSync(join(dir, chosen.file), "utf8")
      return { name, version: chosen.version, digest: sha256(text), text } satisfies Prompt
    },
    catch: (cause) =>
      new PromptNotFound({
        name,
        version: options.version ?? null,
        dir: options.dir ?? PROMPTS_DIR,
        reason: cause instanceof Error ? cause.message : String(cause)
      })
  })

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g

/** The variables a prompt asks for, in order of first use. */
export const promptVariables = (prompt: Prompt): ReadonlyArray<string> => [
  ...new Set(Array.from(prompt.text.matchAll(PLACEHOLDER), (m) => m[1]!))
]

/**
 * `{{var}}` replaced by `vars[var]`, in one pass: a value that itself contains `{{x}}`
 * (an instruction, a page's text) is left as written. Every missing variable is named.
 */
export const renderPrompt = (prompt: Prompt, vars: Readonly<Record<string, string>>): Effect.Effect<string, PromptVariableMissing> => {
  const missing = promptVariables(prompt).filter((v) => typeof vars[v] !== "string")
  if (missing.length > 0) return Effect.fail(new PromptVariableMissing({ prompt: `${prompt.name} v${prompt.version}`, missing }))
  return Effect.succeed(prompt.text.replace(PLACEHOLDER, (_, v: string) => vars[v]!))
}

/** What `ModelRequest.prompt` and `ModelCalled` record of a prompt. */
export const promptRef = (prompt: Prompt): { readonly name: string; readonly version: string; readonly digest: string } => ({
  name: prompt.name,
  version: prompt.version,
  digest: prompt.digest
})
