/**
 * A pack's commands are argv arrays, never shell strings. Placeholders are filled in per
 * argument, in one pass, and the program is spawned without a shell: `{answer}` is model
 * output and `{task}` comes from a tasks file, so a value like `x; rm -rf ~` or `$(curl …)`
 * must reach the program as one inert argument, and a value holding `{instance}` must not
 * be expanded again.
 *
 * @example
 * substitute(["bun", "evaluate.ts", "{instance}", "{answer}"], { instance: "i1", answer: "$(id)" })
 * // ["bun", "evaluate.ts", "i1", "$(id)"]
 */

export type Placeholder = "port" | "instance" | "task" | "answer" | "base"

/** Which placeholders each command may use: only what is known when it runs. */
export const placeholdersOf = {
  start: ["port"],
  stop: ["instance", "port", "base"],
  reset: ["instance", "port", "base"],
  restore: ["instance", "port", "base"],
  evaluate: ["instance", "port", "base", "task", "answer"]
} as const satisfies Record<string, ReadonlyArray<Placeholder>>

export type CommandKind = keyof typeof placeholdersOf

const TOKEN = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g

/**
 * The first placeholder problem of `argv` as `[index, problem]`, or null. The program
 * itself takes none: a model's answer must never choose what runs.
 */
export const placeholderProblem = (argv: ReadonlyArray<string>, kind: CommandKind): readonly [number, string] | null => {
  const allowed: ReadonlyArray<string> = placeholdersOf[kind]
  for (const [i, arg] of argv.entries()) {
    for (const match of arg.matchAll(TOKEN)) {
      const name = match[1]!
      if (i === 0) return [0, `the program takes no placeholders, got {${name}}`]
      if (!allowed.includes(name)) {
        return [i, `unknown placeholder {${name}} for ${kind} (it may use ${allowed.map((p) => `{${p}}`).join(", ")})`]
      }
    }
  }
  return null
}

/** `argv` with its placeholders filled, each argument in one pass; unknown ones are left as written. */
export const substitute = (argv: ReadonlyArray<string>, values: Partial<Record<Placeholder, string>>): ReadonlyArray<string> =>
  argv.map((arg, i) =>
    i === 0
      ? arg
      : arg.replace(TOKEN, (whole, name: string) => {
          const value = Object.hasOwn(values, name) ? (values as Record<string, string | undefined>)[name] : undefined
          return value === undefined ? whole : value
        })
  )
