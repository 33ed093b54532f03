/**
 * What every axis of recorded behaviour shares: its versions in order, the version new runs
 * record, and each named rule mapped to the version that brought it on. A run keeps the
 * version it recorded, so its replays decide as it did; the rules are resolved once, into
 * named booleans, and nothing compares version literals where a rule acts.
 *
 * @example
 * const EXAMPLE = axis("example", "run.example", ["1", "2", "3"], "3", { readsAnswers: "3" })
 * rulesAt(EXAMPLE, config["run.example"]).readsAnswers // false for a run from before versions
 */

/** One axis: its versions, oldest first, what new runs record, and the version each rule came with. */
export interface Axis<V extends string = string, R extends Record<string, V> = Record<string, V>> {
  /** The axis's name in the table of versions (docs/method.md). */
  readonly name: string
  /** The RunStarted config key a run records its version under. */
  readonly key: string
  readonly versions: readonly [V, ...ReadonlyArray<V>]
  /** What new runs record. */
  readonly current: V
  /** Every named rule and the version that introduced it: it holds from there on. */
  readonly since: R
}

/** An axis's rules resolved at one version: each named rule, held or not. */
export type RuleSet<A extends Axis> = { readonly [K in keyof A["since"]]: boolean }

/** The version type of an axis. */
export type VersionOf<A extends Axis> = A["versions"][number]

export const axis = <const V extends string, const R extends Record<string, NoInfer<V>>>(
  name: string,
  key: string,
  versions: readonly [V, ...ReadonlyArray<V>],
  current: NoInfer<V>,
  since: R
): Axis<V, R> => ({ name, key, versions, current, since })

/** A recorded version; anything else (a run from before versions) is the first. */
export const versionOf = <A extends Axis>(a: A, recorded: unknown): VersionOf<A> =>
  a.versions.find((known) => known === recorded) ?? a.versions[0]

/** The axis's rules as they stand at a recorded version (anything unknown reads as the first). */
export const rulesAt = <A extends Axis>(a: A, recorded: unknown): RuleSet<A> => {
  const at = a.versions.indexOf(versionOf(a, recorded))
  return Object.fromEntries(Object.entries(a.since).map(([rule, first]) => [rule, at >= a.versions.indexOf(first)])) as RuleSet<A>
}
