/**
 * What the user grants an app pack, by the name its core-app.json gives it: the `packs`
 * object of `core.config.json` (docs/app-packs.md, "Logging in"). Only the file holds it —
 * no variable or flag of the merged config — because a grant is a decision written down
 * per pack, not a setting picked up from whatever the shell happens to hold.
 *
 * @example
 * // core.config.json
 * { "packs": { "notes": { "allowSecrets": ["NOTES_PASSWORD"] } } }
 * config.packs.get("notes")?.allowSecrets  // ["NOTES_PASSWORD"]
 */
import { Schema } from "effect"

export interface PackSettings {
  /** Environment variables the pack's log-in may type (never one CORE reads: see libs/apps SecretGrants.ts). */
  readonly allowSecrets: ReadonlyArray<string>
}

// Deliberately does not echo the value: a user who pasted the password itself here must not see it printed.
const VariableName = Schema.String.check(
  Schema.isPattern(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: "must be the NAME of an environment variable, not its value" })
)

/** The file's `packs` object: pack name → its settings; unknown keys in an entry are refused by the loader. */
export const PacksFile = Schema.Record(Schema.String, Schema.Struct({ allowSecrets: Schema.Array(VariableName) }))

/**
 * The decoded `packs` object as a map: a pack named `__proto__` or `constructor` is an own
 * key of the parsed JSON, which a plain object's lookups would confuse with its prototype.
 */
export const packSettingsOf = (packs: unknown): ReadonlyMap<string, PackSettings> =>
  new Map(
    typeof packs === "object" && packs !== null && !Array.isArray(packs)
      ? Object.entries(packs as Record<string, PackSettings>).map(([name, s]) => [name, { allowSecrets: [...s.allowSecrets] }])
      : []
  )
