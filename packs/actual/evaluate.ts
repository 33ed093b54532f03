/**
 * `bun evaluate.ts {instance} {task} {answer}`: exit 0 when the task is done, 1 when not,
 * 2 on a usage or infrastructure problem (unknown task, a dir that is not a live instance,
 * the budget unreadable). One line on stdout says why.
 *
 * Reads the budget as the instance's sync server holds it (tools/state.mjs, under node, with
 * `@actual-app/api`) and applies checks.ts. The browser syncs a change to the server a second
 * after the UI shows it (core-app.json's `pageSaveMs` keeps the page open for that), so a
 * failing check is read again every 300 ms for up to 1 s more (`CORE_ACTUAL_EVAL_WAIT_MS`); a
 * pass returns at once. Answer tasks are decided without
 * reading the budget.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { join } from "node:path"
import { CHECKS, type BudgetState } from "./checks.ts"
import { PACK_DIR, checkInstance, readMeta, sleep, tempRoot } from "./lib.ts"

const [instanceArg, taskId, answer = ""] = process.argv.slice(2)
const infra = (line: string): never => {
  console.log(line)
  process.exit(2)
}
const checked = checkInstance(instanceArg)
if ("error" in checked) infra(checked.error)
const { dir } = checked as { dir: string }
const check = taskId ? CHECKS[taskId] : undefined
if (!check) infra(`unknown task ${JSON.stringify(taskId ?? "")}`)
const meta = readMeta(dir)
if (!meta) infra(`not a live instance (no .core/instance.json): ${dir}`)

const readState = async (): Promise<BudgetState> => {
  const scratch = mkdtempSync(join(tempRoot(), "core-actual-eval-"))
  try {
    const proc = Bun.spawn(["node", join(PACK_DIR, "tools/state.mjs"), `http://127.0.0.1:${meta!.port}`, scratch], {
      cwd: PACK_DIR,
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore"
    })
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    rmSync(scratch, { recursive: true, force: true })
    if (code !== 0) infra(`reading the budget failed: ${err.trim().split("\n").slice(-1)[0] ?? `exit ${code}`}`)
    return JSON.parse(out.trim().split("\n").slice(-1)[0]!) as BudgetState
  } catch (cause) {
    rmSync(scratch, { recursive: true, force: true })
    return infra(`reading the budget failed: ${(cause as Error).message}`)
  }
}

const waitMs = Number(process.env.CORE_ACTUAL_EVAL_WAIT_MS ?? 1000)
const deadline = Date.now() + waitMs
for (;;) {
  const verdict = check!.kind === "answer" ? check!.judge(undefined, answer) : check!.judge(await readState(), answer)
  if (verdict.pass || check!.kind === "answer" || Date.now() >= deadline) {
    console.log(`${verdict.pass ? "pass" : "fail"}: ${verdict.why}`)
    process.exit(verdict.pass ? 0 : 1)
  }
  await sleep(300)
}
