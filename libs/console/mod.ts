/** The CORE console: a read-only web view of runs, strategy graphs, trajectory audits, datasets and what-ifs. */
export { escapeHtml, html, trusted } from "./Html.ts"
export type { Html } from "./Html.ts"
export type { Page, PageContext, PageResult } from "./Page.ts"
export { QueryFailed } from "./Queries.ts"
export { ConsoleError, isLoopback, startConsole } from "./Server.ts"
export type { ConsoleOptions, RunningConsole } from "./Server.ts"
export { consoleOver, DEFAULT_CONSOLE_PORT } from "./Open.ts"
export type { ConsoleChoice } from "./Open.ts"
