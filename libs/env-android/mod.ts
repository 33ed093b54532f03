/**
 * `@core/env-android`: the `Environment` of `@core/env-web` on WebDriver (WebdriverIO 9) —
 * Android devices and emulators through Appium / UiAutomator2, and mobile web through
 * chromedriver's mobile emulation, which runs here.
 */
export * as MobileWebEnvironment from "./MobileWebEnvironment.ts"
export type { MobileWebOptions } from "./MobileWebEnvironment.ts"
