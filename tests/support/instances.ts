/**
 * The processes CORE started for a pack's instances on behalf of one test: tagged with
 * `CORE_APP_INSTANCE_TAG`, and run under the test's own TMPDIR (a pack's commands get the
 * caller's TMPDIR). Another run of the same pack on a shared machine is not the test's, so
 * a "nothing left running" check must not count it.
 *
 * @example
 * const tmp = mkdtempSync(join(tmpdir(), "core-pack-tmp-"))
 * await core(["run", "--app", "packs/myapp", …], { TMPDIR: tmp })
 * expect(instanceProcesses(tmp, [PACK, join(tmp, "core-my-")])).toEqual([])
 */
import { readFileSync } from "node:fs"
import { leftovers } from "../../libs/apps/test/support.ts"

export const instanceProcesses = (tmp: string, roots: ReadonlyArray<string>): Array<string> =>
  [...new Set(roots.flatMap((root) => leftovers(root)))].filter((p) => {
    try {
      const environ = readFileSync(`/proc/${p.split(":")[0]}/environ`, "latin1").split("\0")
      return environ.some((v) => v.startsWith("CORE_APP_INSTANCE_TAG=")) && environ.includes(`TMPDIR=${tmp}`)
    } catch {
      return false // gone since
    }
  })
