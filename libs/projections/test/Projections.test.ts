/** Given/when/then specs for each projection's pure `evolve`, on the catalog's sample events. */
import { describe, expect, test } from "bun:test"
import { canonicalJson, makeEvent, TrajectoryVerified } from "@core/events"
import { samples } from "../../../events/test/samples.ts"
import { datasets, demos, graph, labelFunctions, lineage, projections, runs, tasks, trajectories } from "../mod.ts"
import { insertIfAbsent, upsert } from "../RowOp.ts"
import { given } from "./gwt.ts"

const s = samples
const run_id = "r-20260301"

describe("runs", () => {
  test("RunStarted makes the run row", () => {
    given(runs)
      .when(s.RunStarted)
      .then([
        upsert(
          "runs",
          { run_id },
          {
            seed: "42",
            command: "core run --rounds 3",
            code_commit: "c813b43",
            code_dirty: 1,
            config: canonicalJson(s.RunStarted.data.config),
            config_sources: canonicalJson(s.RunStarted.data.configSources),
            tools: canonicalJson(s.RunStarted.data.tools),
            started_at: s.RunStarted.recordedAt
          }
        )
      ])
  })
  test("a round: started, completed, trained — one row", () => {
    given(runs, s.RunStarted, s.RoundStarted, s.RoundCompleted)
      .when(s.PolicyTrained)
      .thenOwnsItsTables()
      .thenRows("rounds", [
        {
          run_id,
          round: 1,
          status: "completed",
          policy: "gui-r1-7b",
          task_ids: '["shop-wishlist-7"]',
          samples_per_task: 5,
          started_at: s.RoundStarted.recordedAt,
          counts: '{"fail":1,"partial":1,"pass":3}',
          dataset_digest: s.RoundCompleted.data.datasetDigest,
          completed_at: s.RoundCompleted.recordedAt,
          trainer: "lora-sft",
          trained_on: s.PolicyTrained.data.datasetDigest,
          checkpoint: "ckpt/iter1",
          metrics: '{"loss":0.412,"steps":120}',
          trained_at: s.PolicyTrained.recordedAt
        }
      ])
  })
  test("a PolicyTrained of a trainer outside any run (its own trainer stream, no run id) touches no run's rounds", () => {
    given(runs)
      .when({ ...s.PolicyTrained, stream: "trainer.follow.nightly", runId: null })
      .then([])
  })
})

describe("tasks", () => {
  test("TaskRegistered and TaskExtrapolated both make tasks", () => {
    given(tasks, s.TaskRegistered)
      .when(s.TaskExtrapolated)
      .thenOwnsItsTables()
      .thenRows("tasks", [
        {
          task_id: "shop-wishlist-7",
          origin: "registered",
          site: "shop",
          suite: "shopping-basic",
          template_id: "wishlist-add",
          template: canonicalJson(s.TaskRegistered.data.template),
          instruction: "Add black garlic to my wish list",
          site_seed: 7,
          checker: "wishlistContains",
          platform: "web",
          start_url: "http://shop.local/",
          app: null,
          registered_at: s.TaskRegistered.recordedAt
        },
        {
          task_id: "x-shop-sort-1",
          origin: "extrapolated",
          run_id,
          instruction: "Sort the black garlic search results by price",
          parent_task_id: "shop-wishlist-7",
          generator: "failure-relabel",
          generator_version: "1",
          prompt_digest: s.TaskExtrapolated.data.lineage.promptDigest,
          pseudo_demo_trajectory_id: "traj-r1-t7-s3",
          registered_at: s.TaskExtrapolated.recordedAt
        }
      ])
  })
})

describe("demos", () => {
  test("an ingested demo, and a rejected one keyed by its stream when it has no id", () => {
    given(demos, s.DemoIngested)
      .when(s.DemoRejected)
      .thenRows("demos", [
        {
          demo_id: "demo-wishlist-1",
          status: "ingested",
          task_id: "shop-wishlist-7",
          source_kind: "file",
          source_ref: "demos/shop/wishlist.jsonl",
          step_count: 3,
          content_digest: s.DemoIngested.data.contentDigest,
          reason: null,
          line: null,
          step_index: null,
          recorded_at: s.DemoIngested.recordedAt
        },
        {
          demo_id: "rejected-3",
          status: "rejected",
          source_kind: "file",
          source_ref: "demos/shop/broken.jsonl",
          reason: "step 2: unknown action kind 'swipe'",
          line: 3,
          step_index: 2,
          recorded_at: s.DemoRejected.recordedAt
        }
      ])
  })
})

describe("label functions", () => {
  test("one row per key step, accepted or rejected", () => {
    given(labelFunctions, s.LabelFunctionInferred)
      .when(s.LabelFunctionRejected)
      .thenRows("label_functions", [
        expect.objectContaining({
          key_step_index: 1,
          status: "inferred",
          lf_id: s.LabelFunctionInferred.data.lfId,
          code: s.LabelFunctionInferred.data.code,
          attempts: 2
        }),
        expect.objectContaining({
          key_step_index: 0,
          status: "rejected",
          lf_id: null,
          code: s.LabelFunctionRejected.data.candidateCode,
          reason: "held on the prefix before its key step"
        })
      ])
  })
})

describe("graph", () => {
  test("PathAdded stores the path and the edges from the virtual start to the virtual end", () => {
    const key = { run_id, task_id: "shop-wishlist-7" }
    given(graph, s.NodeExpanded)
      .when(s.PathAdded)
      .then([
        insertIfAbsent(
          "graph_paths",
          { ...key, path_id: "p-2" },
          {
            node_ids: '["n-wishlist-click","n-status-complete"]',
            signature: null,
            source_kind: "trajectory",
            source_id: "traj-r1-t7-s0",
            recorded_at: s.PathAdded.recordedAt
          }
        ),
        insertIfAbsent("graph_edges", { ...key, from_node: "@start", to_node: "n-wishlist-click" }, { first_path_id: "p-2" }),
        insertIfAbsent("graph_edges", { ...key, from_node: "n-wishlist-click", to_node: "n-status-complete" }, { first_path_id: "p-2" }),
        insertIfAbsent("graph_edges", { ...key, from_node: "n-status-complete", to_node: "@end" }, { first_path_id: "p-2" })
      ])
      .thenRows("graph_nodes", [
        expect.objectContaining({ node_id: "n-wishlist-click", action_kind: "click", role: "button", value: null, how: "partial" })
      ])
  })

  test("a path recorded with its signature (data rules 2) keeps it, for counting paths by meaning", () => {
    const signed = { ...s.PathAdded, data: { ...s.PathAdded.data, signature: '[["lf-a:click"],["lf-b:status"]]' } }
    given(graph, s.NodeExpanded)
      .when(signed)
      .thenRows("graph_paths", [expect.objectContaining({ path_id: "p-2", signature: '[["lf-a:click"],["lf-b:status"]]' })])
  })

  test("a node found again by a second episode before the first was logged keeps its first LF and source", () => {
    const again = {
      ...s.NodeExpanded,
      data: { ...s.NodeExpanded.data, lfId: "lf-second", source: { kind: "trajectory" as const, id: "x1-s1-other" } }
    }
    given(graph, s.NodeExpanded)
      .when(again)
      .thenRows("graph_nodes", [
        expect.objectContaining({
          node_id: s.NodeExpanded.data.nodeId,
          lf_id: s.NodeExpanded.data.lfId,
          source_id: s.NodeExpanded.data.source.id
        })
      ])
  })
})

describe("trajectories", () => {
  test("recorded then verified: one row with its label, and one verdict per LF with its evidence step", () => {
    given(trajectories, s.TrajectoryRecorded)
      .when(s.TrajectoryVerified)
      .thenRows("trajectories", [
        {
          run_id,
          trajectory_id: "traj-r1-t7-s0",
          task_id: "shop-wishlist-7",
          round: 1,
          sample: 0,
          policy: "gui-r1-7b",
          step_count: 13,
          outcome: "completed",
          infra_error: null,
          recorded_at: s.TrajectoryRecorded.recordedAt,
          verdict: "pass",
          path: '["n-wishlist-click","n-status-complete"]',
          verified_at: s.TrajectoryVerified.recordedAt
        }
      ])
      .thenRows(
        "lf_verdicts",
        s.TrajectoryVerified.data.evidence.map((e, i) => ({
          run_id,
          trajectory_id: "traj-r1-t7-s0",
          lf_id: e.lfId,
          task_id: "shop-wishlist-7",
          status: ["satisfied", "satisfied", "error"][i],
          satisfied_at: e.satisfiedAt,
          error: e.error
        }))
      )
  })
  test("a verdict projected before its recording keeps both halves", () => {
    given(trajectories, s.TrajectoryVerified)
      .when(s.TrajectoryRecorded)
      .thenRows("trajectories", [expect.objectContaining({ verdict: "pass", policy: "gui-r1-7b", step_count: 13 })])
  })
  test("a re-verification overwrites the label, not the recording", () => {
    const again = makeEvent(TrajectoryVerified, {
      stream: s.TrajectoryVerified.stream,
      runId: run_id,
      causationId: null,
      ordinal: 1,
      recordedAt: s.TrajectoryVerified.recordedAt,
      data: {
        ...s.TrajectoryVerified.data,
        verdict: "fail",
        path: null,
        evidence: [{ lfId: s.TrajectoryVerified.data.evidence[0]!.lfId, satisfiedAt: -1, error: null }]
      }
    })
    given(trajectories, s.TrajectoryRecorded, s.TrajectoryVerified)
      .when(again)
      .thenRows("trajectories", [expect.objectContaining({ verdict: "fail", path: null, step_count: 13 })])
      .thenRows("lf_verdicts", [expect.objectContaining({ status: "unsatisfied", satisfied_at: -1 })])
  })
})

describe("datasets", () => {
  test("records and the round's seal", () => {
    given(datasets, s.DatasetRecordEmitted)
      .when(s.DatasetSealed)
      .thenRows("dataset_records", [
        expect.objectContaining({
          run_id,
          record_id: s.DatasetRecordEmitted.data.recordId,
          format: "sft",
          trajectory_ids: '["traj-r1-t7-s0"]'
        })
      ])
      .thenRows("dataset_seals", [
        {
          run_id,
          round: 1,
          counts: '{"dpo":1,"rollout":5,"sft":3}',
          record_count: 9,
          content_digest: s.DatasetSealed.data.contentDigest,
          sealed_at: s.DatasetSealed.recordedAt
        }
      ])
  })
})

describe("lineage", () => {
  test("an extrapolated task and a dataset record point back to what made them", () => {
    given(lineage, s.TaskExtrapolated)
      .when(s.DatasetRecordEmitted)
      .thenRows("lineage", [
        {
          run_id,
          child_kind: "task",
          child_id: "x-shop-sort-1",
          relation: "extrapolated-from",
          parent_kind: "task",
          parent_id: "shop-wishlist-7"
        },
        {
          run_id,
          child_kind: "task",
          child_id: "x-shop-sort-1",
          relation: "derived-from",
          parent_kind: "trajectory",
          parent_id: "traj-r1-t7-s3"
        },
        {
          run_id,
          child_kind: "task",
          child_id: "x-shop-sort-1",
          relation: "pseudo-demo",
          parent_kind: "trajectory",
          parent_id: "traj-r1-t7-s3"
        },
        {
          run_id,
          child_kind: "dataset_record",
          child_id: s.DatasetRecordEmitted.data.recordId,
          relation: "record-of",
          parent_kind: "trajectory",
          parent_id: "traj-r1-t7-s0"
        }
      ])
  })
})

test("every projection ignores events it does not project, and writes only its own tables", () => {
  for (const p of projections) {
    for (const e of Object.values(samples)) given(p).when(e).thenOwnsItsTables()
    for (const t of ["ModelCalled", "JobQueued", "JobCompleted", "StepsDescribed", "KeyStepsIdentified"] as const)
      given(p).when(samples[t]).then([])
  }
  const owners = projections.flatMap((p) => p.tables)
  expect(new Set(owners).size).toBe(owners.length)
})
