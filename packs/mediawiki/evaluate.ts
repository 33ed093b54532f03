/**
 * `bun evaluate.ts {instance} {task} {answer}`: was task `{task}` (an id of tasks.json) done
 * in the MediaWiki instance living in `{instance}`? Exit 0 pass, 1 fail, 2 usage or infra
 * error; one line on stdout says why.
 *
 * Reads the instance's SQLite database and PHP's request log (wiki.ts) and applies the task's
 * check (checks.ts). MediaWiki writes an edit before it answers the save, but updates such as
 * category links run after the response, so a failing check is retried every 100 ms for up to
 * 1.5 s (CORE_MW_EVAL_WAIT_MS overrides) before it counts as a fail. Answer tasks are decided
 * at once.
 *
 * @example
 * bun evaluate.ts /tmp/core-mw-AbC123 t02-curlew-pressure "160 psi"       # exit 0
 * bun evaluate.ts /tmp/core-mw-AbC123 t05-append-workshop-log ""          # exit 1 on the seed
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { CHECKS, type Verdict, decide } from "./checks.ts"
import { checkInstance, sleep } from "./lib.ts"
import { lastPageView, openWiki } from "./wiki.ts"

const [instanceArg, taskId, answer = ""] = process.argv.slice(2)
const usage = (problem: string): never => {
  console.log(`evaluate.ts: ${problem} (usage: bun evaluate.ts <instance> <task> [answer])`)
  process.exit(2)
}

const checked = checkInstance(instanceArg)
if ("error" in checked) usage(checked.error)
const dir = (checked as { dir: string }).dir
if (!existsSync(join(dir, "data", "wiki.sqlite"))) usage(`${dir} has no data/wiki.sqlite: not a live instance`)
const check = taskId === undefined ? undefined : CHECKS[taskId]
if (!check) usage(`unknown task ${JSON.stringify(taskId ?? null)}`)

const waitMs = Number(process.env.CORE_MW_EVAL_WAIT_MS ?? 1500)
const deadline = Date.now() + (check!.kind === "answer" ? 0 : waitMs)
let verdict: Verdict
for (;;) {
  try {
    const wiki = openWiki(dir)
    try {
      verdict = decide(check!, wiki, lastPageView(dir), answer)
    } finally {
      wiki.close()
    }
  } catch (e) {
    // A reset swaps the data dir under us, or the database is busy: try again until the deadline.
    verdict = { pass: false, reason: `could not read the wiki: ${(e as Error).message.split("\n")[0]}` }
    if (Date.now() >= deadline) usage(verdict.reason)
  }
  if (verdict.pass || Date.now() >= deadline) break
  await sleep(100)
}
console.log(`${verdict.pass ? "pass" : "fail"}: ${verdict.reason}`)
process.exit(verdict.pass ? 0 : 1)
