/**
 * Every read-model migration, by name; names sort in the order they apply. A change to the
 * read models is a new file listed here, never an edit of an applied one.
 *
 * @example
 * new Migrator({ db, provider: migrationProvider })
 */
import type { Migration, MigrationProvider } from "kysely/migration"
import * as m0001 from "./0001_read_models.ts"
import * as m0002 from "./0002_graph_node_value.ts"
import * as m0003 from "./0003_graph_path_signature.ts"

export const migrations: Record<string, Migration> = {
  "0001_read_models": m0001,
  "0002_graph_node_value": m0002,
  "0003_graph_path_signature": m0003
}

/** Listed statically rather than read from the directory, so it works from any cwd and in a bundle. */
export const migrationProvider: MigrationProvider = { getMigrations: async () => migrations }
