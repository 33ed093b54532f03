/**
 * What every site's suite generator shares: a template spec whose `make` draws instance
 * parameters from the seeded site, the expansion of specs × instance slots into a suite
 * file, the held-out instances whose start or route differs from the demos' (`variantsOf`),
 * and writing it when the generator module is run (`bun apps/sites/suites/<site>.ts`).
 */
import { writeFileSync } from "node:fs"
import { rng } from "../framework/prng.ts"
import type { Rng } from "../framework/prng.ts"
import type { PathFamily, Split, SuiteFile, TemplateCategory, Variant } from "./Suite.ts"
import type { CheckerName } from "./vocabulary.ts"

export type Params = Record<string, string | number>

export interface TemplateSpec<Base> {
  readonly id: string
  readonly category: TemplateCategory
  readonly instruction: string
  readonly checker: CheckerName
  readonly pathFamilies: ReadonlyArray<PathFamily>
  readonly split: Split
  /** Parameters of instance `k` from its seed's site data. */
  readonly make: (base: Base, r: Rng, k: number) => Params
}

/** Instance k of every template: its seed and split. */
export interface InstanceSlot {
  readonly seed: number
  readonly split: Split
}

/** A page an episode may start on instead of the site's home; `key` names it in the instance id (`<template>-from-<key>`). */
export interface StartPage {
  readonly key: string
  readonly path: string
}

/** The episode option that takes the site search away (the shop's and the forum's). */
export const SEARCH_OFF: Readonly<Record<string, string>> = { search: "off" }

/** Whether a template's demo — the run of its first path family's script — goes through the site search. */
export const demoSearches = (pathFamilies: ReadonlyArray<PathFamily>): boolean => pathFamilies[0]?.id.startsWith("search") === true

interface SuiteInstance {
  readonly id: string
  readonly parameters: Params
  readonly siteSeed: number
  readonly split: Split
  readonly start?: { readonly path: string; readonly options?: Readonly<Record<string, string>> }
  readonly variant?: Variant
}

/**
 * The held-out instances whose start or route is not the demos', by a rule fixed before any
 * result was seen. Every train template's held-out instance (its seed and parameters: unseen
 * values) is copied
 * - once per start page the site gives for it (`other-start`, id `<template>-from-<key>`):
 *   pages of a category, product, board or post the task does not name, and a search's
 *   results — never the home page, where every demo starts;
 * - once with the site search switched off (`route-off`, id `<template>-no-search`), starting
 *   on the home page as the demo did, when the template's demo searches (`demoSearches`): the
 *   item must then be found by browsing.
 * A copy differs from its instance only in where it starts or which route is open.
 */
export const variantsOf = (
  spec: { readonly id: string; readonly pathFamilies: ReadonlyArray<PathFamily> },
  heldOut: { readonly parameters: Params; readonly siteSeed: number },
  starts: ReadonlyArray<StartPage>
): ReadonlyArray<SuiteInstance> => [
  ...starts.map(
    (p): SuiteInstance => ({
      id: `${spec.id}-from-${p.key}`,
      parameters: heldOut.parameters,
      siteSeed: heldOut.siteSeed,
      split: "held-out",
      start: { path: p.path },
      variant: "other-start"
    })
  ),
  ...(demoSearches(spec.pathFamilies)
    ? [
        {
          id: `${spec.id}-no-search`,
          parameters: heldOut.parameters,
          siteSeed: heldOut.siteSeed,
          split: "held-out",
          start: { path: "/", options: SEARCH_OFF },
          variant: "route-off"
        } satisfies SuiteInstance
      ]
    : [])
]

/**
 * A suite file: every spec × instance slot; with `startsOf`, each train template also gets
 * the `variantsOf` its held-out slot (the first held-out one), starting where `startsOf` says.
 */
export const generateSuite = <Base>(
  site: string,
  specs: ReadonlyArray<TemplateSpec<Base>>,
  instances: ReadonlyArray<InstanceSlot>,
  baseOf: (seed: number) => Base,
  startsOf?: (base: Base, parameters: Params) => ReadonlyArray<StartPage>
): SuiteFile => ({
  suite: site,
  version: 1,
  templates: specs.map((s) => {
    const made = instances.map(
      ({ seed, split }, k): SuiteInstance => ({
        id: `${s.id}-${k + 1}`,
        parameters: s.make(baseOf(seed), rng(seed, `suite:${s.id}`), k),
        siteSeed: seed,
        // A held-out template is held out whole.
        split: s.split === "held-out" ? "held-out" : split
      })
    )
    const heldOut = made.find((m) => m.split === "held-out")
    const variants =
      startsOf === undefined || s.split !== "train" || heldOut === undefined
        ? []
        : variantsOf(s, heldOut, startsOf(baseOf(heldOut.siteSeed), heldOut.parameters))
    return {
      id: s.id,
      site,
      category: s.category,
      instruction: s.instruction,
      checker: s.checker,
      pathFamilies: s.pathFamilies,
      split: s.split,
      instances: [...made, ...variants]
    }
  })
})

/** The file's exact text: what a test compares with the committed JSON. */
export const suiteJson = (file: SuiteFile): string => `${JSON.stringify(file, null, 2)}\n`

export const writeSuite = (path: string, file: SuiteFile): void => {
  writeFileSync(path, suiteJson(file))
  console.log(`wrote ${path}`)
}
