/**
 * What an Android pack's tasks mean on a device: a task's `start` is an activity (of the
 * pack's app unless it names another package), and an isolation that promises each episode
 * a fresh state has the app's data cleared before that activity starts.
 *
 * @example
 * startActivity("org.example", ".Main")            // "org.example/.Main"
 * startActivity("org.example", "org.other/.Share") // "org.other/.Share"
 */
import type { EnvTask } from "@core/environment"
import type { PackConfig } from "./Format.ts"

const PACKAGE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+$/
const ACTIVITY = /^\.?[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$/

export const isPackage = (name: string): boolean => PACKAGE.test(name)
export const isActivity = (name: string): boolean => ACTIVITY.test(name)

/** `package/activity` for a task's `start`: `.Main` and `org.example.Main` are activities of `appPackage`; null when it is neither form. */
export const startActivity = (appPackage: string, start: string): string | null => {
  const parts = start.split("/")
  const [pkg, activity] = parts.length === 1 ? [appPackage, parts[0]!] : parts.length === 2 ? [parts[0]!, parts[1]!] : ["", ""]
  return isPackage(pkg) && isActivity(activity) ? `${pkg}/${activity}` : null
}

export const ACTIVITY_EXPECTED = "expected an activity: '.Main' or 'org.example.Main' (of the pack's appPackage), or 'org.example/.Main'"

/** Every isolation but `shared-readonly` promises an episode the app's initial state: on a device, its data cleared. */
export const clearsAppData = (config: PackConfig): boolean => config.platform === "android" && config.isolation !== "shared-readonly"

/** What an episode of an Android pack's task starts from: its activity, and the data cleared first when the isolation says so; nothing for a web pack. */
export const androidTaskStart = (config: PackConfig, start: string): Pick<EnvTask, "app" | "clearAppData"> => {
  if (config.android === null) return {}
  const app = startActivity(config.android.appPackage, start) ?? start
  return clearsAppData(config) ? { app, clearAppData: true } : { app }
}
