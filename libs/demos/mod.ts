/** Expert demos: the file format (docs/demos.md), its loader and writer, writing demos to the log, and step files played into demos. */
export * from "./Format.ts"
export * from "./Loader.ts"
export * from "./Ingest.ts"
export * from "./Writer.ts"
export * from "./StepFile.ts"
export * from "./PlaySteps.ts"
export * from "./RecordSteps.ts"
export * from "./PlayPrelude.ts"
