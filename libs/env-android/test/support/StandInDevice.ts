/**
 * The device behind the Appium stand-in (AppiumStandIn.ts): a few screens, each a real
 * UiAutomator dump from ../fixtures/uiautomator2, which one is in front, and how taps,
 * keys and app commands move between them. Deliberately small: enough state that an
 * episode's commands have visible effects (a tap opens another screen, clearing an app's
 * data closes it), not an emulator.
 */
import { Result } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { parseXml } from "../../Xml.ts"
import type { XmlElement } from "../../Xml.ts"

const FIXTURES = join(import.meta.dir, "..", "fixtures", "uiautomator2")

/** A tap inside `bounds` (as the dump writes them) opens `to`: a screen's name, or "back". */
export interface Tap {
  readonly bounds: string
  readonly to: string
}

export interface ScreenSpec {
  /** A file of ../fixtures/uiautomator2. */
  readonly fixture: string
  readonly appPackage: string
  /** As Appium reports it: `.Settings`. */
  readonly activity: string
  readonly taps?: ReadonlyArray<Tap>
}

export interface World {
  /** The launcher: where Home, a terminated app and a cleared app leave the device. */
  readonly home: string
  readonly screens: Readonly<Record<string, ScreenSpec>>
}

/** Settings, whose "Network & internet" opens the network type dialog; picking a type closes it. */
export const settingsWorld: World = {
  home: "launcher",
  screens: {
    launcher: {
      fixture: "appium-pixel-launcher-home.xml",
      appPackage: "com.google.android.apps.nexuslauncher",
      activity: ".NexusLauncherActivity"
    },
    settings: {
      fixture: "appium-settings-main.xml",
      appPackage: "com.android.settings",
      activity: ".Settings",
      taps: [{ bounds: "[0,397][1080,597]", to: "network" }]
    },
    network: {
      fixture: "dump-network-type-dialog.xml",
      appPackage: "com.android.phone",
      activity: ".NetworkTypeDialog",
      taps: ["[66,103][166,263]", "[0,523][1080,711]", "[0,711][1080,899]", "[0,899][1080,1087]", "[0,1087][1080,1275]"].map((bounds) => ({
        bounds,
        to: "back"
      }))
    }
  }
}

export interface Node {
  readonly attributes: Readonly<Record<string, string>>
  readonly box: { readonly x1: number; readonly y1: number; readonly x2: number; readonly y2: number } | null
}

interface Screen extends ScreenSpec {
  readonly name: string
  readonly xml: string
  /** Every element of the dump, in document order: element ids index into it. */
  readonly nodes: ReadonlyArray<Node>
  readonly width: number
  readonly height: number
}

/** A command the device refuses: a W3C error name and Appium's kind of message. */
export class DeviceError extends Error {
  constructor(
    readonly error: string,
    message: string
  ) {
    super(message)
  }
}

const boxOf = (bounds: string | undefined): Node["box"] => {
  const m = /^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$/.exec(bounds ?? "")
  return m === null ? null : { x1: Number(m[1]), y1: Number(m[2]), x2: Number(m[3]), y2: Number(m[4]) }
}

const flatten = (root: XmlElement): Array<Node> => {
  const out: Array<Node> = []
  const walk = (el: XmlElement) => {
    if (el.name !== "hierarchy") out.push({ attributes: { ...el.attributes, tag: el.name }, box: boxOf(el.attributes.bounds) })
    el.children.forEach(walk)
  }
  walk(root)
  return out
}

/** Reads every screen's dump; a world naming a missing file, screen or bounds is refused at once. */
const loadScreens = (world: World): Map<string, Screen> => {
  const screens = new Map<string, Screen>()
  for (const [name, spec] of Object.entries(world.screens)) {
    const xml = readFileSync(join(FIXTURES, spec.fixture), "utf8")
    const parsed = parseXml(xml)
    if (Result.isFailure(parsed)) throw new Error(`${spec.fixture}: ${parsed.failure.message}`)
    const nodes = flatten(parsed.success)
    const right = Math.max(...nodes.map((n) => n.box?.x2 ?? 0))
    const bottom = Math.max(...nodes.map((n) => n.box?.y2 ?? 0))
    for (const tap of spec.taps ?? []) {
      if (!nodes.some((n) => n.attributes.bounds === tap.bounds))
        throw new Error(`screen ${name}: no element of ${spec.fixture} has bounds ${tap.bounds}`)
      if (tap.to !== "back" && world.screens[tap.to] === undefined) throw new Error(`screen ${name}: a tap opens unknown screen ${tap.to}`)
    }
    const width = Number(parsed.success.attributes.width) || right
    const height = Number(parsed.success.attributes.height) || bottom
    screens.set(name, { ...spec, name, xml, nodes, width, height })
  }
  if (!screens.has(world.home)) throw new Error(`the home screen ${world.home} is not a screen`)
  return screens
}

/** `.Settings` and `com.android.settings.Settings` name the same activity of `com.android.settings`. */
const fullActivity = (pkg: string, activity: string): string => (activity.startsWith(".") ? pkg + activity : activity)

export class Device {
  private readonly screens: Map<string, Screen>
  /** The back stack; the last entry is in front. */
  private stack: Array<string>
  /** Packages whose data was cleared, in order: what the app would find missing on its next start. */
  readonly cleared: Array<string> = []

  constructor(private readonly world: World = settingsWorld) {
    this.screens = loadScreens(world)
    this.stack = [world.home]
  }

  get current(): Screen {
    return this.screens.get(this.stack.at(-1)!)!
  }

  get installed(): ReadonlySet<string> {
    return new Set([...this.screens.values()].map((s) => s.appPackage))
  }

  private open(name: string): void {
    this.stack.push(name)
  }

  home(): void {
    this.stack = [this.world.home]
  }

  back(): void {
    if (this.stack.length > 1) this.stack.pop()
  }

  /** A finger down and up at one point: the screen's tap that holds it, if any, is followed. */
  tap(x: number, y: number): void {
    const hit = (this.current.taps ?? []).find((t) => {
      const b = boxOf(t.bounds)!
      return x >= b.x1 && x < b.x2 && y >= b.y1 && y < b.y2
    })
    if (hit === undefined) return
    if (hit.to === "back") this.back()
    else this.open(hit.to)
  }

  /** `mobile: startActivity`'s intent, `com.android.settings/.Settings`. */
  startActivity(intent: string): void {
    const [pkg, activity] = intent.split("/")
    const screen = [...this.screens.values()].find(
      (s) => s.appPackage === pkg && activity !== undefined && fullActivity(s.appPackage, s.activity) === fullActivity(pkg, activity)
    )
    if (screen === undefined) throw new DeviceError("unknown error", `Activity class {${intent}} does not exist`)
    this.open(screen.name)
  }

  activateApp(appId: string): void {
    const screen = [...this.screens.values()].find((s) => s.appPackage === appId)
    if (screen === undefined) throw new DeviceError("unknown error", `The application '${appId}' is not installed on the device`)
    if (this.current.appPackage !== appId) this.open(screen.name)
  }

  /** The app's screens leave the stack; true when it was running. */
  terminateApp(appId: string): boolean {
    const running = this.stack.some((n) => this.screens.get(n)!.appPackage === appId)
    this.stack = this.stack.filter((n, i) => i === 0 || this.screens.get(n)!.appPackage !== appId)
    return running
  }

  /** `pm clear`: the app is stopped and its data is gone. */
  clearApp(appId: string): void {
    if (!this.installed.has(appId))
      throw new DeviceError("unknown error", `Cannot clear the application data of '${appId}'. Original error: Failed`)
    this.terminateApp(appId)
    this.cleared.push(appId)
  }

  /** Elements of the front screen matching a W3C locator; ids are `<screen>:<index>`. */
  find(using: string, value: string): Array<string> {
    const match = (n: Node): boolean => {
      switch (using) {
        case "id":
          return n.attributes["resource-id"] === value
        case "accessibility id":
          return n.attributes["content-desc"] === value
        case "class name":
          return n.attributes.class === value
        case "xpath": {
          const m = /^\/\/(\*|[\w.$]+)\[@([\w-]+)=['"]([^'"]*)['"]\]$/.exec(value)
          if (m === null)
            throw new DeviceError("invalid selector", `The stand-in reads XPath of the form //tag[@attribute='value'] only, got ${value}`)
          return (m[1] === "*" || n.attributes.class === m[1] || n.attributes.tag === m[1]) && n.attributes[m[2]!] === m[3]
        }
        default:
          throw new DeviceError("invalid argument", `Locator strategy '${using}' is not supported for this session`)
      }
    }
    const screen = this.current
    return screen.nodes.flatMap((n, i) => (match(n) ? [`${screen.name}:${i}`] : []))
  }

  /** The element an id names, on the screen in front (another screen's element is stale). */
  element(id: string): Node {
    const [name, index] = id.split(":")
    const node = name === this.current.name ? this.current.nodes[Number(index)] : undefined
    if (node === undefined) throw new DeviceError("stale element reference", `The element '${id}' does not exist in DOM anymore`)
    return node
  }
}
