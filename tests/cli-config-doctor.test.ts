/**
 * `bun core doctor` and `bun core config show` as a user runs them: the real CLI in a
 * child process, against the real nats-server on 127.0.0.1:4222.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core } from "./support/cli.ts"

const tmp = mkdtempSync(join(tmpdir(), "core-cli-config-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

interface DoctorReport {
  readonly checks: ReadonlyArray<{ readonly name: string; readonly status: "ok" | "warn" | "fail"; readonly detail: string }>
  readonly ok: boolean
}

describe("bun core doctor", () => {
  test("--json reports every check, NATS reachable here, and exits 0", async () => {
    const { stdout, code } = await core(["doctor", "--json"])
    const report = JSON.parse(stdout) as DoctorReport
    const byName = new Map(report.checks.map((c) => [c.name, c]))
    for (const name of [
      "bun",
      "config",
      "nats",
      "store",
      "chromium",
      "headless shell",
      "chromedriver",
      "nats-server",
      "postgresql",
      "adb",
      "appium",
      "uiautomator2 driver"
    ]) {
      expect(byName.has(name)).toBe(true)
    }
    for (const c of report.checks) {
      expect(["ok", "warn", "fail"]).toContain(c.status)
      expect(c.detail).not.toContain("\n")
    }
    expect(byName.get("bun")?.status).toBe("ok")
    expect(byName.get("nats")?.status).toBe("ok")
    expect(byName.get("nats")?.detail).toContain("JetStream enabled")
    expect(byName.get("nats")?.detail).toContain("2.9")
    // The shared test server lets anyone in: worth a warning, never a failure.
    expect(byName.get("nats auth")?.status).toBe("warn")
    expect(byName.get("nats auth")?.detail).toContain("accepts anonymous clients")
    expect(byName.get("store")?.status).toBe("ok")
    expect(byName.get("store")?.detail).toContain("NATS JetStream at nats://127.0.0.1:4222")
    expect(byName.get("postgresql")?.status).toBe("ok")
    // scripts/setup installs Debian's headless shell; rollouts run in it
    expect(byName.get("headless shell")?.detail).toMatch(/^Chromium \d+.* at \/usr\/lib\/chromium\/chromium-headless-shell$/)
    expect(report.ok).toBe(true)
    expect(code).toBe(0)
  })

  test("a configured NATS that does not answer is a failed store check, not a crash", async () => {
    const { stdout, stderr, code } = await core(["doctor", "--json"], { NATS_URL: "nats://127.0.0.1:1" })
    const report = JSON.parse(stdout) as DoctorReport
    const store = report.checks.find((c) => c.name === "store")
    expect(store?.status).toBe("fail")
    expect(store?.detail).toContain("nats://127.0.0.1:1")
    expect(report.ok).toBe(false)
    expect(code).not.toBe(0)
    expect(stderr.trim()).toBe("error: doctor: required check failed: store")
  })

  test("given the project's Appium and UiAutomator2 driver, when checked, then both are ok and adb says how to get it", async () => {
    const { stdout, code } = await core(["doctor", "--json"])
    expect(code).toBe(0)
    const byName = new Map((JSON.parse(stdout) as DoctorReport).checks.map((c) => [c.name, c]))
    // Dev dependencies of the repository (package.json), found without starting Appium.
    expect(byName.get("appium")).toMatchObject({
      status: "ok",
      detail: expect.stringMatching(/^Appium 3\.\d+\.\d+ in .*node_modules\/appium /)
    })
    expect(byName.get("uiautomator2 driver")).toMatchObject({
      status: "ok",
      detail: expect.stringMatching(/^appium-uiautomator2-driver \d+\.\d+\.\d+ in .*node_modules\/appium-uiautomator2-driver$/)
    })
    // No Android device path is needed for the rest: adb is a warning at worst, never a failure.
    const adb = byName.get("adb")!
    if (Bun.which("adb") === null && !process.env.ANDROID_HOME && !process.env.ANDROID_SDK_ROOT) {
      expect(adb).toEqual({
        name: "adb",
        status: "warn",
        detail: "not found on PATH (apt-get install adb, or the Android SDK platform-tools); needed only for Android devices and emulators"
      })
    } else {
      expect(["ok", "warn"]).toContain(adb.status)
    }
  })

  test("given an SDK directory with adb, when checked, then adb is ok with its version and where ANDROID_HOME points", async () => {
    // adb is not installed on these machines: a stand-in that answers 'adb version' as adb 1.0.41 does.
    const sdk = join(tmp, "sdk")
    mkdirSync(join(sdk, "platform-tools"), { recursive: true })
    const adb = join(sdk, "platform-tools", "adb")
    writeFileSync(adb, "#!/bin/sh\necho 'Android Debug Bridge version 1.0.41'\necho 'Version 35.0.2-12147458'\n")
    chmodSync(adb, 0o755)
    const { stdout } = await core(["doctor", "--json"], { ANDROID_HOME: sdk, PATH: "/usr/bin:/bin" })
    const check = (JSON.parse(stdout) as DoctorReport).checks.find((c) => c.name === "adb")
    if (Bun.which("adb", { PATH: "/usr/bin:/bin" }) === null) {
      expect(check).toEqual({ name: "adb", status: "ok", detail: `adb 1.0.41 at ${adb} (ANDROID_HOME ${sdk})` })
    } else {
      expect(check?.status).toBe("ok")
    }
  })

  test("--store embedded is honoured and the human table marks each check", async () => {
    const { stdout, code } = await core(["doctor", "--store", "embedded", "--data-dir", join(tmp, "data")])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^✓ store\s+embedded at .*events\.db \(--store embedded\)$/m)
    expect(stdout).toMatch(/^[✓!✗] chromium\s+\S/m)
  })
})

describe("bun core config show", () => {
  test("--json shows an environment override and its source", async () => {
    const { stdout, code } = await core(["config", "show", "--json"], { CORE_DATA_DIR: "/tmp/core-elsewhere" })
    expect(code).toBe(0)
    const shown = JSON.parse(stdout) as { values: Record<string, unknown>; sources: Record<string, string> }
    expect(Object.keys(shown).sort()).toEqual(["sources", "values"])
    expect(shown.values.dataDir).toBe("/tmp/core-elsewhere")
    expect(shown.sources.dataDir).toBe("env:CORE_DATA_DIR")
    expect(shown.values.store).toBe("auto")
    expect(shown.sources.store).toBe("default")
  })

  test("a flag beats the environment, and a database password is never printed", async () => {
    const { stdout, code } = await core(["config", "show", "--nats-url", "nats://flag:4222"], {
      NATS_URL: "nats://env:4222",
      DATABASE_URL: "postgres://core:s3cret-pw@db.example/core"
    })
    expect(code).toBe(0)
    expect(stdout).toMatch(/^nats\.url\s+nats:\/\/flag:4222\s+flag:--nats-url$/m)
    expect(stdout).toMatch(/^database\.url\s+postgres:\/\/core:\*\*\*@db\.example\/core\s+env:DATABASE_URL$/m)
    expect(stdout).not.toContain("s3cret-pw")
  })

  test("a malformed core.config.json is one 'error:' line and a non-zero exit", async () => {
    const bad = join(tmp, "bad.json")
    writeFileSync(bad, `{ "nats": { "url": 4222 }, "store": "nats" }`)
    for (const args of [
      ["config", "show", "--json"],
      ["config", "show"]
    ]) {
      const { stdout, stderr, code } = await core(args, { CORE_CONFIG: bad })
      expect(code).not.toBe(0)
      const lines = stderr.trim().split("\n")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toStartWith("error:")
      expect(lines[0]).toContain(bad)
      expect(lines[0]).toContain("nats.url")
      expect(stderr).not.toMatch(/\bat .*\.ts:\d+/)
      expect(stdout).toBe("")
    }
    writeFileSync(bad, `{ "store": "nats",`)
    const { stderr, code } = await core(["config", "show"], { CORE_CONFIG: bad })
    expect(code).not.toBe(0)
    expect(stderr.trim()).toMatch(/^error: .*bad\.json: invalid JSON: [^\n]+$/)
  })
})
