/**
 * A strategy-graph node's semantic key gained `value` (what was typed, selected, answered or
 * declared): typing "laptop" and "phone" into one box are two nodes, and the read model
 * shows which is which.
 */
import type { Kysely } from "kysely"

export const up = async (db: Kysely<any>): Promise<void> => {
  await db.schema.alterTable("graph_nodes").addColumn("value", "text").execute()
}

export const down = async (db: Kysely<any>): Promise<void> => {
  await db.schema.alterTable("graph_nodes").dropColumn("value").execute()
}
