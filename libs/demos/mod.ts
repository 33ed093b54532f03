/** Expert demos: the file format (README.md), its loader and writer, and writing demos to the log. */
export * from "./Format.ts"
export * from "./Loader.ts"
export * from "./Ingest.ts"
export * from "./Writer.ts"
