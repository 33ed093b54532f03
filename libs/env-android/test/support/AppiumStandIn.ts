/**
 * An Appium stand-in: a real HTTP server speaking the part of the W3C WebDriver / Appium
 * protocol that AppiumEnvironment sends, over the small device of StandInDevice.ts, for
 * machines with no emulator. It answers as Appium 3 with UiAutomator2 does — `{ value }`
 * bodies, W3C error names, `mobile:` commands checked for their required arguments — and
 * records every command it receives, in order (`GET /standin/log`). `GET /standin/state` says
 * what is in front and whose data was cleared; `POST /standin/shutdown` ends it (a pack's stop).
 *
 * In a test: `const appium = startStandIn()` (`appium.url`, `appium.log()`, `appium.stop()`).
 * As a program, e.g. an app pack's `instance.start`:
 *
 *   bun AppiumStandIn.ts --port 4723
 *   INSTANCE=appium-standin-4723
 *   URL=http://127.0.0.1:4723/
 *
 * Like Appium, it answers `GET /` with 404: readiness is `GET /status`.
 */
import { Device, DeviceError, settingsWorld } from "./StandInDevice.ts"
import type { World } from "./StandInDevice.ts"

/** One command as received: `script` and `args` for `execute/sync`, the body's fields otherwise. */
export interface Received {
  readonly method: string
  readonly path: string
  /** The session-relative route with ids generalised: `POST /session/:id/execute/sync`. */
  readonly route: string
  readonly script?: string
  readonly args?: unknown
}

export interface StandIn {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string
  readonly port: number
  readonly device: Device
  log(): ReadonlyArray<Received>
  stop(): void
}

/** A 1×1 PNG: what a screenshot is, without a screen. */
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
const WEB_ELEMENT = "element-6066-11e4-a52e-4f735466cecf"

/** HTTP status of each W3C error the stand-in answers. */
const STATUS: Readonly<Record<string, number>> = {
  "invalid argument": 400,
  "invalid selector": 400,
  "invalid session id": 404,
  "no such element": 404,
  "stale element reference": 404,
  "unknown command": 404,
  "unknown method": 405,
  "session not created": 500,
  "unknown error": 500
}

const ok = (value: unknown): Response => Response.json({ value })
const failure = (error: string, message: string): Response =>
  Response.json({ value: { error, message, stacktrace: "" } }, { status: STATUS[error] ?? 500 })

type Args = Record<string, unknown>

/** Appium's check of a `mobile:` command's arguments: the required ones, of the right type. */
const need = (args: Args, name: string, type: "string" | "number"): void => {
  if (typeof args[name] !== type) throw new DeviceError("invalid argument", `'${name}' is expected to be present and be a ${type}`)
}

/** The `mobile:` commands AppiumEnvironment sends, as UiAutomator2 executes them on the stand-in device. */
const mobile = (device: Device, script: string, args: Args): unknown => {
  switch (script) {
    case "mobile: pressKey":
      need(args, "keycode", "number")
      if (args.keycode === 3) device.home()
      if (args.keycode === 4) device.back()
      return null
    case "mobile: startActivity":
      need(args, "intent", "string")
      device.startActivity(args.intent as string)
      return null
    case "mobile: activateApp":
      need(args, "appId", "string")
      device.activateApp(args.appId as string)
      return null
    case "mobile: terminateApp":
      need(args, "appId", "string")
      return device.terminateApp(args.appId as string)
    case "mobile: clearApp":
      need(args, "appId", "string")
      device.clearApp(args.appId as string)
      return null
    case "mobile: shell": {
      need(args, "command", "string")
      const argv = Array.isArray(args.args) ? args.args.map(String) : []
      if (args.command === "pm" && argv[0] === "clear" && argv[1] !== undefined) {
        device.clearApp(argv[1])
        return "Success"
      }
      return ""
    }
    case "mobile: getCurrentPackage":
      return device.current.appPackage
    case "mobile: getCurrentActivity":
      return device.current.activity
    case "mobile: type":
      need(args, "text", "string")
      return null
    case "mobile: replaceElementValue":
      need(args, "elementId", "string")
      need(args, "text", "string")
      device.element(args.elementId as string)
      return null
    default:
      throw new DeviceError("unknown method", `Unsupported execute method '${script}'`)
  }
}

/** W3C pointer actions: each finger that goes down and up at about the same point is a tap. */
const performActions = (device: Device, sources: unknown): void => {
  if (!Array.isArray(sources)) throw new DeviceError("invalid argument", "'actions' must be an array")
  for (const source of sources as Array<{ type?: string; actions?: Array<Record<string, unknown>> }>) {
    if (source.type !== "pointer") continue
    let at = { x: 0, y: 0 }
    let down: { x: number; y: number } | null = null
    for (const a of source.actions ?? []) {
      if (a.type === "pointerMove") at = { x: Number(a.x), y: Number(a.y) }
      else if (a.type === "pointerDown") down = at
      else if (a.type === "pointerUp" && down !== null) {
        if (Math.abs(at.x - down.x) <= 10 && Math.abs(at.y - down.y) <= 10) device.tap(at.x, at.y)
        down = null
      }
    }
  }
}

const boxOf = (device: Device, id: string) => {
  const b = device.element(id).box
  return b === null ? { x: 0, y: 0, width: 0, height: 0 } : { x: b.x1, y: b.y1, width: b.x2 - b.x1, height: b.y2 - b.y1 }
}

/** What a new session must ask for: an Android device driven by UiAutomator2. */
const sessionCapabilities = (body: Args): Args => {
  const caps = (body.capabilities ?? {}) as { alwaysMatch?: Args; firstMatch?: Array<Args> }
  const merged: Args = { ...caps.alwaysMatch, ...caps.firstMatch?.[0] }
  if (String(merged.platformName).toLowerCase() !== "android" || String(merged["appium:automationName"]).toLowerCase() !== "uiautomator2") {
    throw new DeviceError(
      "session not created",
      "The stand-in drives Android through UiAutomator2: platformName 'Android' and appium:automationName 'UiAutomator2' are required"
    )
  }
  return { ...merged, "appium:deviceName": "standin", "appium:platformVersion": "14" }
}

const generalise = (path: string): string => path.replace(/^\/session\/[^/]+/, "/session/:id").replace(/\/element\/[^/]+/, "/element/:id")

/** Starts the stand-in on `port` (0: any free port) of 127.0.0.1. */
export const startStandIn = (
  options: { readonly port?: number; readonly world?: World; readonly onShutdown?: () => void } = {}
): StandIn => {
  const device = new Device(options.world ?? settingsWorld)
  const received: Array<Received> = []
  const sessions = new Set<string>()

  const session = (id: string, method: string, rest: string, body: Args): Response => {
    if (!sessions.has(id)) return failure("invalid session id", "A session is either terminated or not started")
    const route = `${method} ${rest}`
    switch (true) {
      case route === "DELETE ":
        sessions.delete(id)
        return ok(null)
      case route === "GET /source":
        return ok(device.current.xml)
      case route === "GET /screenshot":
        return ok(PNG_1X1)
      case route === "GET /window/rect":
        return ok({ x: 0, y: 0, width: device.current.width, height: device.current.height })
      case route === "POST /execute/sync": {
        if (typeof body.script !== "string") throw new DeviceError("invalid argument", "'script' must be a string")
        const args = Array.isArray(body.args) && typeof body.args[0] === "object" && body.args[0] !== null ? (body.args[0] as Args) : {}
        return ok(mobile(device, body.script, args))
      }
      case route === "POST /actions":
        performActions(device, body.actions)
        return ok(null)
      case route === "DELETE /actions":
        return ok(null)
      case route === "POST /back":
        device.back()
        return ok(null)
      case route === "POST /appium/device/press_keycode":
        need(body, "keycode", "number")
        if (body.keycode === 3) device.home()
        if (body.keycode === 4) device.back()
        return ok(null)
      case route === "POST /element" || route === "POST /elements": {
        const found = device.find(String(body.using), String(body.value))
        if (route === "POST /elements") return ok(found.map((e) => ({ [WEB_ELEMENT]: e, ELEMENT: e })))
        if (found.length === 0)
          return failure("no such element", "An element could not be located on the page using the given search parameters.")
        return ok({ [WEB_ELEMENT]: found[0], ELEMENT: found[0] })
      }
    }
    const element = /^\/element\/([^/]+)\/(rect|click|text|attribute\/[\w-]+)$/.exec(rest)
    if (element !== null) {
      const [, eid, what] = element as unknown as [string, string, string]
      const node = device.element(eid)
      if (method === "GET" && what === "rect") return ok(boxOf(device, eid))
      if (method === "GET" && what === "text") return ok(node.attributes.text ?? "")
      if (method === "GET" && what.startsWith("attribute/")) return ok(node.attributes[what.slice(10)] ?? null)
      if (method === "POST" && what === "click") {
        const b = boxOf(device, eid)
        device.tap(Math.floor(b.x + b.width / 2), Math.floor(b.y + b.height / 2))
        return ok(null)
      }
    }
    return failure(
      "unknown command",
      `The requested resource could not be found, or a request was received using an HTTP method that is not supported by the mapped resource: ${method} ${rest}`
    )
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    async fetch(request) {
      const { pathname } = new URL(request.url)
      const method = request.method
      if (pathname === "/standin/log") return Response.json(received)
      if (pathname === "/standin/shutdown" && method === "POST") {
        setTimeout(options.onShutdown ?? (() => void server.stop(true)), 10)
        return ok(null)
      }
      if (pathname === "/standin/state") {
        return Response.json({
          appPackage: device.current.appPackage,
          activity: device.current.activity,
          cleared: device.cleared,
          sessions: sessions.size
        })
      }
      const text = method === "GET" || method === "DELETE" ? "" : await request.text()
      let body: Args = {}
      try {
        body = text === "" ? {} : (JSON.parse(text) as Args)
      } catch {
        return failure("invalid argument", "the body is not JSON")
      }
      received.push({
        method,
        path: pathname,
        route: `${method} ${generalise(pathname)}`,
        ...(typeof body.script === "string" ? { script: body.script, args: body.args } : Object.keys(body).length > 0 ? { args: body } : {})
      })
      try {
        if (method === "GET" && pathname === "/status")
          return ok({ ready: true, message: "The stand-in is ready", build: { version: "standin" } })
        if (method === "POST" && pathname === "/session") {
          const capabilities = sessionCapabilities(body)
          const id = crypto.randomUUID()
          sessions.add(id)
          return ok({ sessionId: id, capabilities })
        }
        const m = /^\/session\/([^/]+)(\/.*)?$/.exec(pathname)
        if (m !== null) return session(m[1]!, method, m[2] ?? "", body)
        return failure("unknown command", `The requested resource could not be found: ${method} ${pathname}`)
      } catch (e) {
        if (e instanceof DeviceError) return failure(e.error, e.message)
        return failure("unknown error", e instanceof Error ? e.message : String(e))
      }
    }
  })
  const port = server.port!
  return { url: `http://127.0.0.1:${port}/`, port, device, log: () => [...received], stop: () => void server.stop(true) }
}

if (import.meta.main) {
  const argv = process.argv.slice(2)
  const at = argv.indexOf("--port")
  const port = at === -1 ? Number.NaN : Number(argv[at + 1])
  if (!Number.isInteger(port) || port < 1 || port > 65535 || argv.length !== 2) {
    console.error("usage: bun AppiumStandIn.ts --port <1-65535>")
    process.exit(2)
  }
  try {
    const standIn = startStandIn({ port, onShutdown: () => process.exit(0) })
    console.log(`INSTANCE=appium-standin-${standIn.port}`)
    console.log(`URL=${standIn.url}`)
  } catch (e) {
    console.error(`appium stand-in: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`)
    process.exit(1)
  }
}
