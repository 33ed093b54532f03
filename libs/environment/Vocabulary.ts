/**
 * What the shared action vocabulary (`Action` in @core/events) means on every platform, so
 * a `wait`, a `long_press` or a `type` by reference does the same on the web, in mobile web
 * and on a device: how long each may last and where a secret's text comes from.
 *
 * @example
 * const text = typedText(action, readEnvSecret) // the variable's value, or { error }
 * await sleep(Math.min(action.ms, maxWaitMs))
 */
import type { Action } from "@core/events"

/** `wait` is capped so a policy cannot park a browser context or a device indefinitely. */
export const maxWaitMs = 30_000

/** How long a press is held for `long_press`. */
export const longPressMs = 800

/** Reads a secret by its variable's name; undefined when it is not set. */
export type ReadSecret = (name: string) => string | undefined

/** The process environment: where a person or an operator puts the passwords a demo replays. */
export const readEnvSecret: ReadSecret = (name) => process.env[name]

type TypeAction = Extract<Action, { kind: "type" }>

/** The text a `type` puts in the field, or why it cannot (a reference to a variable that is not set). */
export const typedText = (action: TypeAction, read: ReadSecret = readEnvSecret): string | { readonly error: string } => {
  if (action.secretEnv === undefined) return action.text
  const value = read(action.secretEnv)
  return value === undefined ? { error: `type: the secret variable ${action.secretEnv} is not set` } : value
}
