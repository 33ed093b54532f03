/**
 * What every site's suite generator shares: a template spec whose `make` draws instance
 * parameters from the seeded site, the expansion of specs × instance slots into a suite
 * file, and writing it when the generator module is run (`bun apps/sites/suites/<site>.ts`).
 */
import { writeFileSync } from "node:fs"
import { rng } from "../framework/prng.ts"
import type { Rng } from "../framework/prng.ts"
import type { PathFamily, Split, SuiteFile, TemplateCategory } from "./Suite.ts"
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

export const generateSuite = <Base>(
  site: string,
  specs: ReadonlyArray<TemplateSpec<Base>>,
  instances: ReadonlyArray<InstanceSlot>,
  baseOf: (seed: number) => Base
): SuiteFile => ({
  suite: site,
  version: 1,
  templates: specs.map((s) => ({
    id: s.id,
    site,
    category: s.category,
    instruction: s.instruction,
    checker: s.checker,
    pathFamilies: s.pathFamilies,
    split: s.split,
    instances: instances.map(({ seed, split }, k) => ({
      id: `${s.id}-${k + 1}`,
      parameters: s.make(baseOf(seed), rng(seed, `suite:${s.id}`), k),
      siteSeed: seed,
      // A held-out template is held out whole.
      split: s.split === "held-out" ? "held-out" : split
    }))
  }))
})

/** The file's exact text: what a test compares with the committed JSON. */
export const suiteJson = (file: SuiteFile): string => `${JSON.stringify(file, null, 2)}\n`

export const writeSuite = (path: string, file: SuiteFile): void => {
  writeFileSync(path, suiteJson(file))
  console.log(`wrote ${path}`)
}
