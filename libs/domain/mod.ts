/**
 * CORE's pure domain: no I/O, no services. Each paper concept under its own name.
 */
export * from "./LfTrajectory.ts"
