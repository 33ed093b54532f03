/**
 * A strategy-graph path gained its signature: its label functions in order, form fields on
 * one page as a set. Paths with one signature verify identically, so a reader counts
 * distinct paths by it. Paths of runs recorded before it have none (null): their nodes told
 * them apart.
 */
import type { Kysely } from "kysely"

export const up = async (db: Kysely<any>): Promise<void> => {
  await db.schema.alterTable("graph_paths").addColumn("signature", "text").execute()
}

export const down = async (db: Kysely<any>): Promise<void> => {
  await db.schema.alterTable("graph_paths").dropColumn("signature").execute()
}
