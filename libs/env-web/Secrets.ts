/**
 * Secrets typed into pages: how a `type` into a password field is recorded so its text
 * never reaches a log (where a `type` by reference finds its value is @core/environment's
 * `typedText`). Shared by the web and mobile-web environments.
 *
 * @example
 * const recorded = sealTyped(action, knownSecrets({ secretEnvs: ["SHOP_PASSWORD"] }))
 */
import type { Page } from "playwright-core"
import { readEnvSecret } from "@core/environment"
import type { ReadSecret } from "@core/environment"
import { defaultSecretEnv, sealTyped } from "@core/events"
import type { Action, Secret, Target } from "@core/events"

export interface SecretOptions {
  /**
   * Variables whose values a policy may type into a password field: such a `type` is recorded
   * as a reference to the variable, anything else typed there masked. Default [CORE_DEMO_PASSWORD].
   */
  readonly secretEnvs?: ReadonlyArray<string>
  /** Where their values come from; default the process environment. */
  readonly readSecret?: ReadSecret
}

/** The configured secrets that are set, with their values. */
export const knownSecrets = (options: SecretOptions): ReadonlyArray<Secret> => {
  const read = options.readSecret ?? readEnvSecret
  return (options.secretEnvs ?? [defaultSecretEnv]).flatMap((name) => {
    const value = read(name)
    return value === undefined || value === "" ? [] : [[name, value] as const]
  })
}

/** Runs in the page: is the element with this id a password input? (No waiting: absent is false.) */
const isPasswordInPage = (id: string): boolean => {
  const el: any = (globalThis as any).document.querySelector(`[data-core-id="${id}"]`)
  return el !== null && el.tagName === "INPUT" && String(el.type).toLowerCase() === "password"
}

/**
 * The action as the trajectory records it. Asked before the action runs: a `type` + Enter
 * may leave the page, and with it the field that tells. A configured secret's value is
 * recorded by reference whatever the field, and even when nothing gets typed.
 */
export const recordedAction = async (page: Page, action: Action, options: SecretOptions): Promise<Action> => {
  if (action.kind !== "type") return action
  const known = action.secretEnv === undefined ? knownSecrets(options) : []
  if (known.some(([, value]) => value === action.text)) return sealTyped(action, known)
  const id = action.target?.elementId ?? null
  // Ids are only ever e<digits>; a bad one is the action's error, and nothing gets typed.
  if (id === null || !/^e\d+$/.test(id)) return action
  const password = await page.evaluate(isPasswordInPage, id)
  return password || action.secretEnv !== undefined ? sealTyped(action, known) : action
}

/** What the person typed into a field, as the page reported it. */
export interface Typed {
  readonly text: string
  readonly submit: boolean
  /** An `<input type=password>`. */
  readonly password: boolean
}

/**
 * The step a person's typing records. A password is recorded as a reference to `secretEnv`
 * (its text is nowhere in the demo), and so is that variable's value typed into any other
 * field (a key in a text field); `warning` tells the person when the variable would not type
 * the same password on replay.
 */
export const typedAction = (
  target: Target | null,
  typed: Typed,
  secretEnv: string,
  read: ReadSecret
): { readonly action: Action; readonly warning: string | null } => {
  const value = read(secretEnv)
  if (!typed.password && (value === undefined || value === "" || value !== typed.text))
    return { action: { kind: "type", target, text: typed.text, submit: typed.submit }, warning: null }
  const warning =
    value === typed.text
      ? null
      : `the password typed is recorded as $${secretEnv}, which ${value === undefined ? "is not set" : "holds another value"}: set ${secretEnv} to that password (or record with --secret-env NAME) so the demo replays`
  return { action: { kind: "type", target, text: "", submit: typed.submit, secretEnv }, warning }
}
