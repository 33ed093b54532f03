/**
 * `bun core <command>`: finds the command by its longest matching words and runs it.
 */
import type { Command } from "./Cli.ts"
import { runCommand } from "./Cli.ts"
import { commands } from "./commands/mod.ts"
import { markNonDumpable } from "@core/config"

// Before any command can start a pack: its processes, of the same user, could read our environment otherwise.
if (!markNonDumpable() && process.env.CORE_DEBUG)
  console.error("core: could not mark the process non-dumpable: processes of your user can read its environment")

const usage = (): string =>
  [
    "usage: bun core <command> [flags]   (bun core <command> --help for its flags)",
    "",
    ...commands.map((c) => `  ${c.name.padEnd(Math.max(18, ...commands.map((x) => x.name.length + 2)))}${c.summary}`)
  ].join("\n")

const argv = process.argv.slice(2)
if (argv.length === 0 || argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") {
  console.log(usage())
  process.exit(0)
}

let match: Command | undefined
let words = 0
for (const c of commands) {
  const parts = c.name.split(" ")
  if (parts.length > words && parts.every((p, i) => argv[i] === p)) {
    match = c
    words = parts.length
  }
}
if (!match) {
  const prefix = commands.filter((c) => c.name.startsWith(`${argv[0]} `)).map((c) => c.name)
  console.error(
    prefix.length > 0
      ? `error: '${argv.join(" ")}' is not a command; try ${prefix.map((p) => `'${p}'`).join(", ")}`
      : `error: unknown command '${argv[0]}'; run 'bun core help' for the list`
  )
  process.exit(2)
}
await runCommand(match, argv.slice(words))
