/**
 * A demo folder is input from whoever handed it over: links, FIFOs, devices, huge or
 * growing files must be refused with one line before their bytes are read.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, unlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DemoFileError, loadDemo } from "../mod.ts"
import type { LoadOptions } from "../mod.ts"
import { writeDemo } from "./fixture.ts"

const tmp = mkdtempSync(join(tmpdir(), "core-demos-hostile-"))
const spawned: Array<ReturnType<typeof Bun.spawn>> = []
afterAll(() => {
  for (const p of spawned) p.kill()
  rmSync(tmp, { recursive: true, force: true })
})
const canary = join(tmp, "canary.txt")
writeFileSync(canary, "secret")
const base: LoadOptions = { tasks: new Set(["shop-wishlist-add-1"]) }
let n = 0
const fresh = () => writeDemo(join(tmp, `d${n++}`))
const dirOf = (file: string) => file.slice(0, -"/demo.json".length)

const reason = async (file: string, options: LoadOptions = base): Promise<string> => {
  const r = await Effect.runPromise(Effect.flip(loadDemo(file, options)))
  expect(r).toBeInstanceOf(DemoFileError)
  expect(r.message).not.toContain("\n")
  return r.reason
}

describe("hostile demo folders", () => {
  test("a symbolic link as a blob or as demo.json is refused, not followed", async () => {
    const a = fresh()
    unlinkSync(join(dirOf(a), "shots", "s1.png"))
    symlinkSync(canary, join(dirOf(a), "shots", "s1.png"))
    expect(await reason(a)).toBe(`blobs["s1.png"]: 'shots/s1.png' is a symbolic link, not a file`)
    const b = fresh()
    unlinkSync(join(dirOf(b), "a0.txt"))
    symlinkSync("/dev/zero", join(dirOf(b), "a0.txt"))
    expect(await reason(b)).toBe(`blobs["a0.txt"]: 'a0.txt' is a symbolic link, not a file`)
    const c = fresh()
    const real = join(tmp, `real-${n}.json`)
    writeFileSync(real, "{}")
    unlinkSync(c)
    symlinkSync(real, c)
    expect(await reason(c)).toBe("$: demo.json is a symbolic link, not a file")
  })

  test("a blob under a symlinked folder that leaves the demo's folder is refused", async () => {
    const file = fresh()
    const dir = dirOf(file)
    rmSync(join(dir, "shots"), { recursive: true })
    symlinkSync(tmp, join(dir, "shots"))
    // The outside folder holds files of the right names: only the link check stands between them and the log.
    writeFileSync(join(tmp, "s0.png"), "x")
    writeFileSync(join(tmp, "s1.png"), "y")
    expect(await reason(file)).toBe(`blobs["s0.png"]: 'shots/s0.png' is in a folder outside the demo's folder (through a symbolic link)`)
    const dev = fresh()
    symlinkSync("/dev", join(dirOf(dev), "dev"))
    writeFileSync(dev, (await Bun.file(dev).text()).replace(`"a0.txt": "a0.txt"`, `"a0.txt": "dev/zero"`))
    expect(await reason(dev)).toBe(`blobs["a0.txt"]: 'dev/zero' is in a folder outside the demo's folder (through a symbolic link)`)
  })

  test("a FIFO is refused at once, not waited on", async () => {
    const file = fresh()
    const fifo = join(dirOf(file), "a0.txt")
    unlinkSync(fifo)
    expect(await Bun.spawn(["mkfifo", fifo]).exited).toBe(0)
    // If the loader ever blocks on the FIFO again, this writer frees it after a few seconds so the test fails instead of hanging.
    spawned.push(Bun.spawn(["timeout", "20", "sh", "-c", `sleep 3; echo x > '${fifo}'`]))
    expect(await reason(file)).toBe(`blobs["a0.txt"]: 'a0.txt' is a FIFO, not a regular file`)
  })

  test("a file over the per-file limit is refused before it is read; the demo's total too", async () => {
    const file = fresh()
    truncateSync(join(dirOf(file), "e0.json"), 3 * 1024 ** 3) // sparse: costs nothing on disk
    expect(await reason(file)).toBe(`blobs["e0.json"]: 'e0.json' is 3.0 GiB, over the 16 MiB limit per blob (ingest.maxBlobBytes)`)
    const small = fresh()
    writeFileSync(join(dirOf(small), "a0.txt"), new Uint8Array(100 * 1024))
    const limited = { ...base, maxBlobBytes: 64 * 1024 }
    expect(await reason(small, limited)).toBe(
      `blobs["a0.txt"]: 'a0.txt' is 100.0 KiB, over the 64 KiB limit per blob (ingest.maxBlobBytes)`
    )
    expect(await reason(small, { ...base, maxDemoBytes: 64 * 1024 })).toBe(
      `blobs["a0.txt"]: 'a0.txt' brings the demo to 101.5 KiB, over the 64 KiB limit per demo (ingest.maxDemoBytes)`
    )
    writeFileSync(small, " ".repeat(70 * 1024) + (await Bun.file(small).text()))
    expect(await reason(small, limited)).toBe("$: demo.json is 71.5 KiB, over the 64 KiB limit per file (ingest.maxBlobBytes)")
  })

  test("a directory, a hard link, a device in the blob's place", async () => {
    const dir = fresh()
    unlinkSync(join(dirOf(dir), "a0.txt"))
    mkdirSync(join(dirOf(dir), "a0.txt"))
    expect(await reason(dir)).toBe(`blobs["a0.txt"]: 'a0.txt' is a directory, not a file`)
    const linked = fresh()
    unlinkSync(join(dirOf(linked), "a0.txt"))
    linkSync(canary, join(dirOf(linked), "a0.txt"))
    expect(await reason(linked)).toBe(
      `blobs["a0.txt"]: 'a0.txt' has 2 hard links (it is also a file elsewhere); copy it into the demo's folder instead`
    )
    const missing = fresh()
    unlinkSync(join(dirOf(missing), "a0.txt"))
    expect(await reason(missing)).toBe(`blobs["a0.txt"]: blob file 'a0.txt' not found beside the demo`)
  })
})
