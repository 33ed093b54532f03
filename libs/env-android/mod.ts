/**
 * `@core/env-android`: the `Environment` of `@core/environment` on WebDriver (WebdriverIO 9) —
 * Android devices and emulators through Appium / UiAutomator2, and mobile web through
 * chromedriver's mobile emulation, which runs here.
 */
export * as MobileWebEnvironment from "./MobileWebEnvironment.ts"
export type { MobileWebOptions } from "./MobileWebEnvironment.ts"
export * as AppiumEnvironment from "./AppiumEnvironment.ts"
export type { AppiumOptions } from "./AppiumEnvironment.ts"
export { androidStateChanging, appTarget, KEYCODES, perform as performOnDevice } from "./AppiumActions.ts"
export type { ActionContext as DeviceActionContext, Device } from "./AppiumActions.ts"
export {
  elementsOf,
  foregroundPackage,
  freshIds,
  maskedHierarchy,
  PageSourceError,
  parseBounds,
  parsePageSource,
  readableId,
  readPageSource,
  roleOf,
  viewportOf
} from "./PageSource.ts"
export type { IdState, PageElements, PageSourceFormat, ParsedPage, UiNode, UiTree } from "./PageSource.ts"
export { parseXml, XmlError } from "./Xml.ts"
export type { XmlElement } from "./Xml.ts"
