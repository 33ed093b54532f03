/**
 * A behaviour's versions in order, and its rules asked by name: a rule holds from the
 * version that brought it on. A run keeps the version it recorded, so its replays decide
 * as it did; nothing compares version literals where a rule acts.
 *
 * @example
 * const exploration = versioned(["1", "2", "3"] as const)
 * const readsAnswers = exploration.since("3")
 * readsAnswers(exploration.of(config["run.exploration"])) // false for a run from before versions
 */
export const versioned = <V extends string>(versions: ReadonlyArray<V>) => ({
  /** A recorded version; anything else (a run from before versions) is the first. */
  of: (v: unknown): V => versions.find((known) => known === v) ?? versions[0]!,
  /** A rule that holds from `first` on. */
  since:
    (first: V) =>
    (v: V): boolean =>
      versions.indexOf(v) >= versions.indexOf(first)
})
