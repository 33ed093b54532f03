/**
 * A version 2 Android demo built from real UiAutomator2 page sources (libs/env-android's
 * fixtures): blobs as AppiumEnvironment stores them — the elements blob `{ url: null, app,
 * viewport, rotation, elements }` from the parsed hierarchy, the hierarchy itself as the tree.
 */
import { Result } from "effect"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { parsePageSource } from "@core/env-android"
import { PNG } from "./fixture.ts"

const SOURCES = join(import.meta.dir, "..", "..", "env-android", "test", "fixtures", "uiautomator2")
export const SETTINGS = "com.android.settings/.Settings"
export const NETWORK = "com.android.phone/.NetworkSetting"

/** A screen's tree (the page source as captured) and its elements blob. */
export const androidScreen = (source: string, app: string) => {
  const tree = readFileSync(join(SOURCES, source), "utf8")
  const page = Result.getOrThrow(parsePageSource(tree))
  return {
    tree,
    elements: JSON.stringify({ url: null, app, viewport: page.viewport, rotation: page.tree.rotation, elements: page.elements })
  }
}

const target = (role: string, name: string, elementId: string) => ({ role, name, elementId, text: null })

/** Settings' home, then a tap on "Network & internet" opening the preferred network dialog. */
export const androidDemo = (): any => ({
  format: "core-demo",
  version: 2,
  demoId: "settings-network-1-a",
  taskId: "settings-network-1",
  platform: "android",
  recordedWith: "script",
  initial: { screenshot: "home.png", elements: "home.json", aria: "home.xml" },
  steps: [
    {
      action: { kind: "click", target: target("button", "Network & internet Wi‑Fi, mobile, data usage, and hotspot", "e6") },
      urlBefore: null,
      urlAfter: null,
      appBefore: SETTINGS,
      appAfter: NETWORK,
      observation: { screenshot: null, elements: "network.json", aria: "network.xml" }
    },
    {
      action: { kind: "status", status: "complete" },
      urlBefore: null,
      urlAfter: null,
      appBefore: NETWORK,
      appAfter: NETWORK,
      observation: { screenshot: null, elements: null, aria: null }
    }
  ],
  blobs: {
    "home.png": "home.png",
    "home.json": "home.json",
    "home.xml": "home.xml",
    "network.json": "network.json",
    "network.xml": "network.xml"
  }
})

/** Writes `demo` (default: the Android one) and its blobs into `dir`; returns the demo.json path. */
export const writeAndroidDemo = (dir: string, demo: any = androidDemo()): string => {
  mkdirSync(dir, { recursive: true })
  const home = androidScreen("appium-settings-main.xml", SETTINGS)
  const network = androidScreen("dump-network-type-dialog.xml", NETWORK)
  writeFileSync(join(dir, "home.png"), PNG)
  writeFileSync(join(dir, "home.json"), home.elements)
  writeFileSync(join(dir, "home.xml"), home.tree)
  writeFileSync(join(dir, "network.json"), network.elements)
  writeFileSync(join(dir, "network.xml"), network.tree)
  const file = join(dir, "demo.json")
  writeFileSync(file, JSON.stringify(demo, null, 2))
  return file
}
