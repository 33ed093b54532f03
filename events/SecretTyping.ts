/**
 * Text typed into a password field, as logs, demos and datasets hold it: never in clear.
 * A secret the environment knows by name is recorded as a reference to its variable
 * (`{ text: "", secretEnv }`), which replays; any other text is masked, one `•` per
 * character, as the element list masks a password field's value. `hideSecrets` masks a
 * secret's value wherever it occurs in a text (an observation's, a log line's).
 *
 * @example
 * sealTyped({ kind: "type", target, text: "hunter2" }, [["SHOP_PASSWORD", "hunter2"]])
 * // { kind: "type", target, text: "", secretEnv: "SHOP_PASSWORD" }
 * hideSecrets("signed in as hunter2", ["hunter2"]) // "signed in as •••••••"
 */
import { canonicalJson } from "./Canonical.ts"
import type { Action } from "./Trajectory.ts"

/** The variable a recorded password refers to unless told otherwise. */
export const defaultSecretEnv = "CORE_DEMO_PASSWORD"

type TypeAction = Extract<Action, { kind: "type" }>

/** A secret's name and its current value (the value never leaves the process). */
export type Secret = readonly [name: string, value: string]

const MASKED = /^•+$/

/** One `•` per character: what a password field shows, and so how every masked secret reads. */
export const dots = (text: string): string => "•".repeat(text.length)

/**
 * `text` with every occurrence of each secret replaced by `mask` of it (by default `dots`);
 * longest first, so one containing another is hidden whole. Observations use the default,
 * so a secret reads as a password field's value does; a log line may want a fixed marker.
 */
export const hideSecrets = (text: string, secrets: Iterable<string>, mask: (secret: string) => string = dots): string => {
  let out = text
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret !== "" && out.includes(secret)) out = out.split(secret).join(mask(secret))
  }
  return out
}

/** The record of `action`, typed into a password field, given the secrets the environment knows. */
export const sealTyped = (action: TypeAction, secrets: ReadonlyArray<Secret>): TypeAction => {
  if (action.secretEnv !== undefined) return { ...action, text: "" }
  const known = secrets.find(([, value]) => value !== "" && value === action.text)
  if (known !== undefined) return { ...action, text: "", secretEnv: known[0] }
  return { ...action, text: dots(action.text) }
}

/** Whether a recorded action's text was sealed: its clear text is not in the log to compare. */
export const isSealed = (action: Action): boolean => action.kind === "type" && (action.secretEnv !== undefined || MASKED.test(action.text))

/**
 * Replay's check for a sealed record: the decider asks for a `type` on the same target,
 * with the same Enter and mode — its text cannot be compared with what the log never held.
 */
export const matchesSealed = (recorded: Action, requested: Action): boolean =>
  isSealed(recorded) &&
  recorded.kind === "type" &&
  requested.kind === "type" &&
  canonicalJson(recorded.target) === canonicalJson(requested.target) &&
  (recorded.submit === true) === (requested.submit === true) &&
  (recorded.mode ?? "fill") === (requested.mode ?? "fill") &&
  (requested.secretEnv === undefined || requested.secretEnv === recorded.secretEnv)
