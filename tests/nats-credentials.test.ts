/**
 * NATS credentials come from environment variables the config names, never from the URL
 * (which is printed and recorded). Against a nats-server of the test's own that requires a
 * user and password: the stores and `bun core` get in with them, a wrong password is one
 * `error:` line that does not hold it, and `doctor` warns only about a server that lets
 * anonymous clients in.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime } from "effect"
import { BlobStore, JetStreamBlobStore } from "@core/blobstore"
import { runStream } from "@core/events"
import { EventStore, JetStreamStore, probeNats } from "@core/eventstore"
import { job, uniqueRun } from "../libs/eventstore/test/conformance.ts"
import { testServer } from "../libs/eventstore/test/natsServer.ts"
import type { TestServer } from "../libs/eventstore/test/natsServer.ts"
import { core, expectOneLineError } from "./support/cli.ts"

const USER = "core-user"
const PASSWORD = "pw-Kx81vQ"
const WRONG = "wrong-Zu27pL"

let server: TestServer
beforeAll(async () => {
  server = await testServer(["--user", USER, "--pass", PASSWORD])
})
afterAll(() => server.dispose())

const named = (password: string) => ({
  NATS_URL: server.url,
  CORE_NATS_USER_ENV: "TEST_NATS_USER",
  CORE_NATS_PASSWORD_ENV: "TEST_NATS_PASSWORD",
  TEST_NATS_USER: USER,
  TEST_NATS_PASSWORD: password
})

describe("NATS credentials", () => {
  test("the event store and the blob store authenticate with the user and password given", async () => {
    const credentials = { user: USER, password: PASSWORD }
    const rt = ManagedRuntime.make(
      Layer.mergeAll(
        JetStreamStore.layer({ url: server.url, credentials }),
        JetStreamBlobStore.layer({ url: server.url, credentials })
      ) as Layer.Layer<EventStore | BlobStore, unknown>
    )
    try {
      const r = uniqueRun()
      const stream = runStream(r, "job", "w0")
      const appended = await rt.runPromise(
        Effect.flatMap(Effect.service(EventStore), (s) => s.append(stream, [job(r, stream, 0)], { expectedRevision: 0 }))
      )
      expect(appended.revision).toBeGreaterThan(0)
      const bytes = new TextEncoder().encode("behind a password")
      expect(await rt.runPromise(Effect.flatMap(Effect.service(BlobStore), (b) => Effect.flatMap(b.put(bytes), b.get)))).toEqual(bytes)
    } finally {
      await rt.dispose()
    }
  })

  test("credentials in the URL are refused without being echoed", async () => {
    const url = `nats://${USER}:${PASSWORD}@127.0.0.1:${server.port}`
    const exit = await Effect.runPromiseExit(JetStreamStore.make({ url }).pipe(Effect.scoped))
    expect(exit._tag).toBe("Failure")
    expect(JSON.stringify(exit)).not.toContain(PASSWORD)
    expect(JSON.stringify(exit)).toContain("nats.passwordEnv")
    const probe = await Effect.runPromise(probeNats(url))
    expect(probe.reachable).toBe(false)
    expect(probe.error).not.toContain(PASSWORD)
  })

  test("bun core with the right variables reads the log; with a wrong password it is one error line without the password", async () => {
    const ok = await core(["events", "tail", "--no-follow", "--store", "nats", "--filter", "none.such"], named(PASSWORD))
    expect(ok.stderr).toContain(`store: nats ${server.url}`)
    expect(ok.code).toBe(0)
    const bad = await core(["events", "tail", "--no-follow", "--store", "nats", "--filter", "none.such"], named(WRONG))
    expectOneLineError(bad, expect)
    expect(bad.stderr).toMatch(/^error: .*authori[sz]ation/im)
    expect(bad.stderr + bad.stdout).not.toContain(WRONG)
    const inUrl = await core(["events", "tail", "--no-follow", "--store", "nats"], {
      NATS_URL: `nats://${USER}:${PASSWORD}@127.0.0.1:${server.port}`
    })
    expectOneLineError(inUrl, expect)
    expect(inUrl.stderr).toContain("nats.passwordEnv")
    expect(inUrl.stderr + inUrl.stdout).not.toContain(PASSWORD)
  })

  test("doctor: a server that refuses anonymous clients passes the auth check; reachable and ok with the credentials", async () => {
    const { stdout } = await core(["doctor", "--json"], named(PASSWORD))
    const checks = new Map(
      (JSON.parse(stdout) as { checks: Array<{ name: string; status: string; detail: string }> }).checks.map((c) => [c.name, c])
    )
    expect(checks.get("nats auth")).toMatchObject({ status: "ok", detail: `${server.url} refuses anonymous clients` })
    expect(checks.get("nats")?.status).toBe("ok")
    expect(checks.get("store")?.status).toBe("ok")
    expect(stdout).not.toContain(PASSWORD)
  })
})
