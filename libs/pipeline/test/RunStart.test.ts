/**
 * A RunStarted built by startRun with RunConfig's codec: marked with run.configVersion, so
 * its deciders decode it strictly; and an infer or demo run's defaults read exactly as the
 * same run's config did when it recorded none of the run's keys (upcast).
 */
import { expect, test } from "bun:test"
import { Effect } from "effect"
import { startRun } from "@core/engine"
import { defaultRunConfig, modelSources, runConfigCodec, runConfigOf } from "../mod.ts"

const identity = {
  config: { "models.model": "m", "models.baseUrl": "http://localhost:1", seed: "s" },
  configSources: { "models.model": "file", "models.baseUrl": "file", seed: "default" },
  seed: "s",
  code: { commit: null, dirty: false },
  tools: {}
}

test("an infer run's RunStarted records run.configVersion and reads as its old, unversioned record did", async () => {
  const config = { ...defaultRunConfig(identity.config), demos: "all" as const, lfGuide: "2" as const, synthesis: "2" as const }
  const sources = { ...modelSources(identity), "infer.demos": "flag:--all" }
  const started = await Effect.runPromise(startRun("infer", { value: config, codec: runConfigCodec, sources }, identity, "infer-1"))
  expect(started.data.command).toBe("infer")
  expect(started.data.config["run.configVersion"]).toBe(2)
  expect(started.data.configSources).toMatchObject({ "infer.demos": "flag:--all", "run.model": "file", "run.tasks": "default" })
  const old = { ...identity.config, "infer.demos": "all", "infer.lfGuide": "2", "infer.synthesis": "2" }
  expect(runConfigOf(started.data.config)).toEqual(runConfigOf(old))
})

test("extra config may not set one of the run's keys", async () => {
  const run = { value: defaultRunConfig({}), codec: runConfigCodec, extra: { "run.rounds": 3 } }
  const exit = await Effect.runPromiseExit(startRun("run", run, identity, "run-1"))
  expect(exit._tag).toBe("Failure")
})
