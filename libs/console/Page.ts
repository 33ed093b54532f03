/**
 * The contract between the console's server and its pages: a page is an Effect from the
 * request's path parameters and query to a title and a body, reading the read models (kept
 * caught up by the server) and the run logs. Pages never write: the log is the only record,
 * and the one page that computes (the what-if) replays in the sandbox.
 */
import type { Effect } from "effect"
import type { BlobStore } from "@core/blobstore"
import type { CoreEvent } from "@core/events"
import type { EventStore } from "@core/eventstore"
import type { ReadModels } from "@core/projections"
import type { Html } from "./Html.ts"

export interface PageContext {
  /** Migrated and caught up with the log by the server before each page (it may lag a running run by a moment). */
  readonly readModels: ReadModels
  /** A run's events with the workspace facts logged before it ended, as `audit trajectory` and `replay` read them; cached per log head. Empty when there is no such run. */
  readonly runLog: (runId: string) => Effect.Effect<ReadonlyArray<CoreEvent>, unknown, EventStore>
}

export type PageResult =
  | { readonly kind: "page"; readonly title: string; readonly body: Html; readonly live?: { readonly runId: string | null } }
  | { readonly kind: "not-found"; readonly message: string }

export type Page = (
  ctx: PageContext,
  params: Readonly<Record<string, string>>,
  query: URLSearchParams
) => Effect.Effect<PageResult, unknown, EventStore | BlobStore>
