/**
 * Task suites: versioned JSON files of templates and their instances (README.md here).
 * `loadSuite` decodes a file with the schema below, checks it against the sites'
 * vocabulary (checkers, parameters that exist in the seeded site), fills instructions, and
 * fails with ONE line: `<file>: <json path>: <problem>`.
 */
import { Effect, Schema, SchemaIssue } from "effect"
import { readFileSync } from "node:fs"
import { CHECKERS, isCheckerName, SITE_PARAMETERS } from "./vocabulary.ts"
import type { CheckerName } from "./vocabulary.ts"

/** Ids become stream tokens (`ws.task.<id>`), so no dots or spaces. */
const Id = Schema.String.pipe(Schema.check(Schema.isPattern(/^[a-z0-9][a-z0-9-]*$/)))
export const Split = Schema.Literals(["train", "held-out"])
export type Split = typeof Split.Type
export const TemplateCategory = Schema.Literals(["navigation", "search", "form", "transaction", "information", "infeasible"])
export type TemplateCategory = typeof TemplateCategory.Type
const ParameterValue = Schema.Union([Schema.String, Schema.Number])

export const PathFamily = Schema.Struct({ id: Id, description: Schema.String })
export type PathFamily = typeof PathFamily.Type

/**
 * How a held-out instance differs from its template's demos (Generator.ts, `variantsOf`):
 * it starts on another page than the site's home (`other-start`), or the route the demo
 * took is switched off in its episode (`route-off`).
 */
export const Variant = Schema.Literals(["other-start", "route-off"])
export type Variant = typeof Variant.Type

/** Where an instance's episode starts, when not on the site's home: a site-relative path, and the episode's options. */
export const Start = Schema.Struct({
  path: Schema.String,
  options: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
})
export type Start = typeof Start.Type

export const Instance = Schema.Struct({
  id: Id,
  parameters: Schema.Record(Schema.String, ParameterValue),
  siteSeed: Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: 0xffffffff }))),
  split: Split,
  start: Schema.optionalKey(Start),
  variant: Schema.optionalKey(Variant)
})

export const Template = Schema.Struct({
  id: Id,
  site: Schema.String,
  category: TemplateCategory,
  /** With `{name}` placeholders, each filled from the instance's parameters. */
  instruction: Schema.String,
  checker: Schema.String,
  pathFamilies: Schema.Array(PathFamily),
  split: Split,
  instances: Schema.Array(Instance)
})

export const SuiteFile = Schema.Struct({ suite: Id, version: Schema.Literal(1), templates: Schema.Array(Template) })
export type SuiteFile = typeof SuiteFile.Type

/** One instance, ready to register or run: instruction filled, split resolved (a held-out template holds out all its instances). */
export interface SuiteTask {
  readonly id: string
  readonly suite: string
  readonly version: number
  readonly site: string
  readonly templateId: string
  readonly category: TemplateCategory
  readonly checker: CheckerName
  readonly pathFamilies: ReadonlyArray<PathFamily>
  readonly split: Split
  readonly parameters: Readonly<Record<string, string | number>>
  readonly siteSeed: number
  readonly instruction: string
  /** Absent: the episode starts on the site's home with no options, as the demos do. */
  readonly start?: Start
  /** Absent for the instances the demos' conditions hold for. */
  readonly variant?: Variant
}

export interface Suite {
  readonly file: string
  readonly suite: string
  readonly version: number
  readonly templates: ReadonlyArray<typeof Template.Type>
  readonly tasks: ReadonlyArray<SuiteTask>
}

export class SuiteError extends Schema.TaggedError<SuiteError>()("SuiteError", { message: Schema.String }) {}

export const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9]*)\}/g

export const placeholders = (instruction: string): Array<string> => [...new Set([...instruction.matchAll(PLACEHOLDER)].map((m) => m[1]!))]

export const fillInstruction = (instruction: string, parameters: Readonly<Record<string, string | number>>): string =>
  instruction.replace(PLACEHOLDER, (_, name: string) => String(parameters[name]))

/** `templates[2].instances[0].parameters.product` from a path of keys and indices. */
const jsonPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (s, k) =>
      typeof k === "number"
        ? `${s}[${k}]`
        : /^[A-Za-z_$][\w$]*$/.test(String(k))
          ? `${s}${s ? "." : ""}${String(k)}`
          : `${s}[${JSON.stringify(String(k))}]`,
    ""
  ) || "$"

/** The first problem in a decoded suite, as [path, message], or null. */
const problem = (s: SuiteFile): [ReadonlyArray<PropertyKey>, string] | null => {
  const templateIds = new Map<string, number>()
  const instanceIds = new Map<string, string>()
  for (const [t, tpl] of s.templates.entries()) {
    const at = (...rest: Array<PropertyKey>) => ["templates", t, ...rest]
    const seenT = templateIds.get(tpl.id)
    if (seenT !== undefined) return [at("id"), `duplicate template id '${tpl.id}' (also templates[${seenT}])`]
    templateIds.set(tpl.id, t)
    const vocabulary = SITE_PARAMETERS[tpl.site]
    if (!vocabulary) return [at("site"), `unknown site '${tpl.site}' (known: ${Object.keys(SITE_PARAMETERS).join(", ")})`]
    if (!isCheckerName(tpl.checker))
      return [
        at("checker"),
        `unknown checker '${tpl.checker}' (known: ${Object.keys(CHECKERS)
          .filter((c) => CHECKERS[c as CheckerName].site === tpl.site)
          .join(", ")})`
      ]
    const checker = CHECKERS[tpl.checker]
    if (checker.site !== tpl.site) return [at("checker"), `checker '${tpl.checker}' is for site '${checker.site}', not '${tpl.site}'`]
    if (tpl.pathFamilies.length === 0) return [at("pathFamilies"), "needs at least one path family"]
    const families = new Set<string>()
    for (const [f, fam] of tpl.pathFamilies.entries()) {
      if (families.has(fam.id)) return [at("pathFamilies", f, "id"), `duplicate path family id '${fam.id}'`]
      families.add(fam.id)
    }
    if (tpl.instances.length === 0) return [at("instances"), "needs at least one instance"]
    const needed = [...placeholders(tpl.instruction), ...checker.parameters]
    for (const [i, inst] of tpl.instances.entries()) {
      const atI = (...rest: Array<PropertyKey>) => at("instances", i, ...rest)
      const seenI = instanceIds.get(inst.id)
      if (seenI !== undefined) return [atI("id"), `duplicate instance id '${inst.id}' (also ${seenI})`]
      instanceIds.set(inst.id, jsonPath(atI()))
      if (tpl.split === "held-out" && inst.split !== "held-out")
        return [atI("split"), `template '${tpl.id}' is held out, so its instances must be too`]
      // A changed start or route is what the split measures: training on one would leak it.
      if (inst.variant !== undefined && inst.split !== "held-out")
        return [atI("split"), `instance '${inst.id}' has variant '${inst.variant}', so it must be held out`]
      if (inst.start !== undefined && !/^\/(?!\/)/.test(inst.start.path))
        return [atI("start", "path"), `'${inst.start.path}' is not a path inside the site (it must start with one '/')`]
      for (const name of needed) {
        if (!Object.hasOwn(inst.parameters, name)) {
          const why = checker.parameters.includes(name as never)
            ? `checker '${tpl.checker}' needs it`
            : "the instruction has the placeholder"
          return [atI("parameters"), `no value for parameter {${name}} (${why})`]
        }
      }
      for (const [name, value] of Object.entries(inst.parameters)) {
        const validate = vocabulary[name]
        if (!validate)
          return [
            atI("parameters", name),
            `unknown parameter '${name}' for site ${tpl.site} (known: ${Object.keys(vocabulary).join(", ")})`
          ]
        const bad = validate(value, inst.siteSeed)
        if (bad !== null) return [atI("parameters", name), bad]
      }
    }
  }
  return null
}

const lower = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1)

/** Decodes and validates a suite's JSON text; `file` names it in errors. */
export const parseSuite = (text: string, file: string): Effect.Effect<Suite, SuiteError> =>
  Effect.gen(function* () {
    const fail = (path: ReadonlyArray<PropertyKey>, message: string) =>
      new SuiteError({ message: `${file}: ${jsonPath(path)}: ${message.replace(/\s*\n\s*/g, "; ")}` })
    const json = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (e) => fail([], `not valid JSON (${e instanceof Error ? e.message : String(e)})`)
    })
    const decoded = yield* Schema.decodeUnknownEffect(SuiteFile)(json, { onExcessProperty: "error" }).pipe(
      Effect.mapError((error) => {
        const first = SchemaIssue.makeFormatterStandardSchemaV1()(error.issue).issues[0]
        const message = lower((first?.message ?? "invalid value").replace(/ \| undefined/g, ""))
        const path = (first?.path ?? []).map((k) =>
          typeof k === "object" && k !== null && "key" in k ? (k.key as PropertyKey) : (k as PropertyKey)
        )
        return fail(path, message === "expected no excess property" ? "unknown field" : message)
      })
    )
    const bad = problem(decoded)
    if (bad) return yield* fail(...bad)
    const tasks = decoded.templates.flatMap((tpl) =>
      tpl.instances.map(
        (inst): SuiteTask => ({
          id: inst.id,
          suite: decoded.suite,
          version: decoded.version,
          site: tpl.site,
          templateId: tpl.id,
          category: tpl.category,
          checker: tpl.checker as CheckerName,
          pathFamilies: tpl.pathFamilies,
          split: tpl.split === "held-out" ? "held-out" : inst.split,
          parameters: inst.parameters,
          siteSeed: inst.siteSeed,
          instruction: fillInstruction(tpl.instruction, inst.parameters),
          ...(inst.start === undefined ? {} : { start: inst.start }),
          ...(inst.variant === undefined ? {} : { variant: inst.variant })
        })
      )
    )
    return { file, suite: decoded.suite, version: decoded.version, templates: decoded.templates, tasks }
  })

/** Reads and validates one suite file. */
export const loadSuite = (file: string): Effect.Effect<Suite, SuiteError> =>
  Effect.try({
    try: () => readFileSync(file, "utf8"),
    catch: (e) => new SuiteError({ message: `${file}: cannot read (${e instanceof Error ? e.message.split("\n")[0] : String(e)})` })
  }).pipe(Effect.flatMap((text) => parseSuite(text, file)))
