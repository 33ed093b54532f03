/** Every `bun core` command, in the order `bun core help` lists them. */
import type { Command } from "../Cli.ts"
import { configShow } from "./config.ts"
import { doctor } from "./doctor.ts"

export const commands: ReadonlyArray<Command> = [
  doctor,
  configShow
]
