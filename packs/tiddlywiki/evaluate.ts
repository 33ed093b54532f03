/**
 * `bun evaluate.ts {instance} {task} {answer}`: was task `{task}` (an id of tasks.json) done
 * in the TiddlyWiki instance living in `{instance}`? Exit 0 pass, 1 fail, 2 usage or infra
 * error; one line on stdout says why.
 *
 * Reads the tiddler files TiddlyWiki's filesystem plugin wrote under `{instance}/tiddlers`
 * (titles from inside the files, drafts ignored; lib.ts `readWiki`) and applies the task's
 * check (checks.ts). Answer tasks are decided at once. For the others the browser's edits
 * reach the disk with a delay (the page's syncer batches changes, then the server's syncer
 * writes them; about 0.3–0.6 s with the seed's 200 ms throttle), so a failing check is
 * retried every 100 ms for up to 2.5 s (CORE_TW_EVAL_WAIT_MS overrides) before it counts
 * as a fail: a pass is reported as soon as it lands.
 *
 * @example
 * bun evaluate.ts /tmp/core-tw-AbC123 t06-follow-lead-hometown "Port Elspeth"   # exit 0
 * bun evaluate.ts /tmp/core-tw-AbC123 t07-append-maintenance-log ""            # exit 1 on the seed
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { CHECKS, type Verdict, decide } from "./checks.ts"
import { SEED_DIR, checkInstance, readWiki, sleep } from "./lib.ts"

const [instanceArg, taskId, answer = ""] = process.argv.slice(2)
const usage = (problem: string): never => {
  console.log(`evaluate.ts: ${problem} (usage: bun evaluate.ts <instance> <task> [answer])`)
  process.exit(2)
}

const checked = checkInstance(instanceArg)
if ("error" in checked) usage(checked.error)
const dir = (checked as { dir: string }).dir
if (!existsSync(join(dir, "tiddlers"))) usage(`${dir} has no tiddlers folder: not a live instance`)
const check = taskId === undefined ? undefined : CHECKS[taskId]
if (!check) usage(`unknown task ${JSON.stringify(taskId ?? null)}`)

const waitMs = Number(process.env.CORE_TW_EVAL_WAIT_MS ?? 2500)
const seed = readWiki(SEED_DIR)
const deadline = Date.now() + (check!.kind === "answer" ? 0 : waitMs)
let verdict: Verdict
for (;;) {
  verdict = decide(check!, readWiki(dir), seed, answer)
  if (verdict.pass || Date.now() >= deadline) break
  await sleep(100)
}
console.log(`${verdict.pass ? "pass" : "fail"}: ${verdict.reason}`)
process.exit(verdict.pass ? 0 : 1)
