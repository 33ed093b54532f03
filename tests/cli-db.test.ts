/** `bun core db migrate|status|project` as a user runs them, on the default SQLite file and an embedded log. */
import { expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core, spawnCore } from "./support/cli.ts"

test("db status → migrate → project → status, with --json", async () => {
  const dir = mkdtempSync(join(tmpdir(), "core-cli-db-"))
  const env = { CORE_DATA_DIR: dir, CORE_STORE: "embedded" }
  try {
    const before = JSON.parse((await core(["db", "status", "--json"], env)).stdout)
    expect(before.migrated).toBe(false)
    expect(before.database).toBe(`sqlite:${join(dir, "projections.db")}`)

    const migrated = await core(["db", "migrate", "--json"], env)
    expect(migrated.code).toBe(0)
    expect(JSON.parse(migrated.stdout).applied).toEqual(["0001_read_models", "0002_graph_node_value", "0003_graph_path_signature"])

    expect((await core(["demo", "--round-trip", "--json"], env)).code).toBe(0)
    const projected = await core(["db", "project", "--json"], env)
    expect(projected.code).toBe(0)
    const after = JSON.parse((await core(["db", "status", "--json"], env)).stdout)
    expect(after.migrated).toBe(true)
    expect(after.head).toBeGreaterThan(0)
    expect(after.projections.every((p: { behind: number }) => p.behind === 0)).toBe(true)

    const bad = await core(["db", "migrate", "--database-url", "mysql://nope"], env)
    expect(bad.code).toBe(1)
    expect(bad.stderr.trim()).toBe("error: read-model database mysql://nope: database URL must start with sqlite: or postgres://")
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test("db project --follow keeps the read models current as runs are appended", async () => {
  const dir = mkdtempSync(join(tmpdir(), "core-cli-db-follow-"))
  const env = { CORE_DATA_DIR: dir, CORE_STORE: "embedded" }
  const follower = spawnCore(["db", "project", "--follow"], env)
  // Drained as it comes: a follower blocked on a full pipe would look like one that stopped projecting.
  const said = new Response(follower.stderr).text()
  void new Response(follower.stdout).text()
  try {
    const demos = []
    for (let i = 0; i < 2; i++) demos.push(await core(["demo", "--round-trip", "--json"], env))
    expect(demos.map((d) => (d.code === 0 ? 0 : d.stderr))).toEqual([0, 0])
    let status = { head: 0, projections: [] as Array<{ behind: number }> }
    let last = { stdout: "", stderr: "", code: 0 }
    for (let i = 0; i < 100 && follower.exitCode === null; i++) {
      last = await core(["db", "status", "--json"], env)
      if (last.code === 0) status = JSON.parse(last.stdout)
      if (status.head > 0 && status.projections.length > 0 && status.projections.every((p) => p.behind === 0)) break
      await Bun.sleep(100)
    }
    // On a failure the follower's and the last status's own words say why, not just which number was off.
    const caughtUp = status.head === 14 && status.projections.every((p) => p.behind === 0)
    const alive = follower.exitCode === null
    expect({
      alive,
      caughtUp,
      ...(alive && caughtUp ? {} : { head: status.head, status: last, follower: alive ? "" : await said })
    }).toEqual({ alive: true, caughtUp: true })
  } finally {
    follower.kill()
    // A follower that ignores its stop is a failure of its own, not a test left hanging.
    const stopped = await Promise.race([follower.exited, Bun.sleep(20_000).then(() => "hung" as const)])
    if (stopped === "hung") follower.kill("SIGKILL")
    rmSync(dir, { recursive: true, force: true })
    expect({ stopped, said: stopped === "hung" ? await said : "" }).toEqual({ stopped: 130, said: "" })
  }
})
