/**
 * What a rule's behavioural case is (Rules.spec.test.ts runs them): code run at the version
 * before the rule's and at the rule's, with the outcome each gives; or, for a rule whose case
 * is still to come, the reason. One table per axis, typed from the registry, so a rule added
 * there without a case here does not typecheck.
 *
 * @example
 * const lfGuide: Table["lfGuide"] = { typesAtCursor: { run: (v) => lfApiGuide(v).includes("insert"), before: false, after: true } }
 */
import type { AXES } from "@core/domain"
import { deciderSpecs } from "@core/engine/testing"
import { specKit } from "../Kit.ts"

/** A case run at the version before the rule's and at the rule's: the outcomes the rule tells apart. */
export interface Behaviour {
  readonly run: (version: string) => unknown
  readonly before: unknown
  readonly after: unknown
}
export type Entry = Behaviour | { readonly pending: string }
export type Table = { readonly [A in keyof typeof AXES]: { readonly [R in keyof (typeof AXES)[A]["since"]]: Entry } }

/** The deciders' specs the cases run, in one blob store and sandbox (the test disposes of them). */
export const { spec, dispose } = deciderSpecs("rules", specKit)

/** Seeds spread as a run's are: a digest per draw. */
export const seedOf = (i: number): string => new Bun.CryptoHasher("sha256").update(`rules-${i}`).digest("hex")
