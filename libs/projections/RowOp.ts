/**
 * What a projection asks of its tables: row operations, data rather than I/O, so `evolve`
 * stays a pure function that tests can compare with expected operations.
 *
 * @example
 * upsert("tasks", { task_id: "t1" }, { instruction: "Add black garlic" })
 */

/** Column values are kept to what SQLite and PostgreSQL store and read back alike. */
export type Value = string | number | null
export type Row = Readonly<Record<string, Value>>

export type RowOp =
  /** Insert `key ∪ set`; if the key exists, overwrite only the `set` columns. */
  | { readonly _tag: "Upsert"; readonly table: string; readonly key: Row; readonly set: Row }
  /** Insert `key ∪ set` unless the key exists (first writer wins). */
  | { readonly _tag: "InsertIfAbsent"; readonly table: string; readonly key: Row; readonly set: Row }
  /** Delete every row whose columns equal `key`'s (a prefix of the key deletes a group). */
  | { readonly _tag: "Delete"; readonly table: string; readonly key: Row }

export const upsert = (table: string, key: Row, set: Row): RowOp => ({ _tag: "Upsert", table, key, set })
export const insertIfAbsent = (table: string, key: Row, set: Row = {}): RowOp => ({ _tag: "InsertIfAbsent", table, key, set })
export const remove = (table: string, key: Row): RowOp => ({ _tag: "Delete", table, key })
