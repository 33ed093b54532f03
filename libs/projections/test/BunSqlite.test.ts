/** The bun:sqlite adapter under Kysely: reads, writes with changes and row ids, RETURNING, streaming, transactions. */
import { Database } from "bun:sqlite"
import { expect, test } from "bun:test"
import { Kysely, SqliteDialect, sql } from "kysely"
import { bunSqliteDatabase } from "../BunSqlite.ts"

const open = () => new Kysely<any>({ dialect: new SqliteDialect({ database: bunSqliteDatabase(new Database(":memory:")) }) })

test("Kysely queries run on bun:sqlite", async () => {
  const db = open()
  await db.schema
    .createTable("t")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("name", "text")
    .addColumn("flag", "integer")
    .execute()
  const inserted = await db
    .insertInto("t")
    .values([
      { name: "a", flag: true },
      { name: "b", flag: false }
    ])
    .executeTakeFirst()
  expect(inserted.numInsertedOrUpdatedRows).toBe(2n)
  expect(inserted.insertId).toBe(2n)
  expect(await db.insertInto("t").values({ name: "c", flag: undefined }).returning(["id", "name"]).execute()).toEqual([
    { id: 3, name: "c" }
  ])
  const updated = await db.updateTable("t").set({ name: "z" }).where("id", "<", 3).executeTakeFirst()
  expect(updated.numUpdatedRows).toBe(2n)
  expect(await db.selectFrom("t").select(["id", "name", "flag"]).orderBy("id").execute()).toEqual([
    { id: 1, name: "z", flag: 1 },
    { id: 2, name: "z", flag: 0 },
    { id: 3, name: "c", flag: null }
  ])
  const streamed: Array<unknown> = []
  for await (const row of db.selectFrom("t").select("id").orderBy("id").stream()) streamed.push(row)
  expect(streamed).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }])
  expect((await sql<{ n: number }>`SELECT count(*) AS n FROM t`.execute(db)).rows).toEqual([{ n: 3 }])
  await db.destroy()
})

test("a failed transaction rolls back", async () => {
  const db = open()
  await db.schema
    .createTable("t")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .execute()
  await expect(
    db.transaction().execute(async (trx) => {
      await trx.insertInto("t").values({ id: 1 }).execute()
      await trx.insertInto("t").values({ id: 1 }).execute()
    })
  ).rejects.toThrow(/UNIQUE/)
  expect(await db.selectFrom("t").selectAll().execute()).toEqual([])
  await db.destroy()
})
