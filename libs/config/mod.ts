/** `@core/config`: the merged configuration, its secrets discipline and run identity. */
export * from "./Config.ts"
export * from "./Identity.ts"
export * from "./Recording.ts"
