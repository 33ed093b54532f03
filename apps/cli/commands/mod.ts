/** Every `bun core` command, in the order `bun core help` lists them. */
import type { Command } from "../Cli.ts"

export const commands: ReadonlyArray<Command> = []
