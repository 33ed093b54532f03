/**
 * The statistics `eval --report` prints for its arms (EvalReport.ts): an arm's success with a
 * bootstrap interval over held-out tasks, and the paired difference of two arms with a
 * bootstrap interval over the same tasks. Tasks, not episodes, are what is resampled: a
 * task's episodes share its template, so they are not independent evidence.
 *
 * @example
 * summarise([{ a: 1, b: 0 }, { a: 1, b: 1 }])              // { mean: 0.75, ci_low, ci_high }
 * pairedDifference(coreRound3PerSeed, bcPerSeed).ci_low     // > 0: CORE beats bc on these tasks
 */

export interface Interval {
  readonly mean: number
  readonly ci_low: number
  readonly ci_high: number
}

/** One arm against another on the same tasks: the mean per-task difference and its 95% bootstrap interval. */
export interface PairedInterval {
  readonly mean_diff: number
  readonly ci_low: number
  readonly ci_high: number
  readonly tasks: number
}

/** Per seed: each task's success (the share of its episodes the checker accepted). */
export type PerSeed = ReadonlyArray<Readonly<Record<string, number>>>

const RESAMPLES = 2000

/** Each task's success averaged over seeds, tasks sorted. */
const taskMeans = (perSeed: PerSeed): Array<readonly [string, number]> =>
  Object.keys(perSeed[0] ?? {})
    .sort()
    .map((t) => [t, perSeed.reduce((n, s) => n + (s[t] ?? 0), 0) / perSeed.length] as const)

const round = (x: number) => Math.round(x * 1000) / 1000

const mean = (xs: ReadonlyArray<number>) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length)

/**
 * The means of `resamples` bootstrap samples of `xs` (drawn with replacement), sorted. The
 * draws come from a fixed LCG seed, so the same figures give the same interval in every run.
 */
const bootstrapMeans = (xs: ReadonlyArray<number>, resamples: number): ReadonlyArray<number> => {
  let state = 0x2545f491
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32
  return Array.from({ length: resamples }, () => mean(xs.map(() => xs[Math.floor(next() * xs.length)]!))).sort((a, b) => a - b)
}

/** The 2.5% and 97.5% quantiles of sorted bootstrap means. */
const interval95 = (sorted: ReadonlyArray<number>, resamples: number) => ({
  ci_low: round(sorted[Math.floor(resamples * 0.025)] ?? 0),
  ci_high: round(sorted[Math.ceil(resamples * 0.975) - 1] ?? 0)
})

/** Mean of per-seed rates, and a 95% bootstrap interval over tasks (each task's success averaged over seeds). */
export const summarise = (perSeed: PerSeed, resamples = RESAMPLES): Interval => {
  const byTask = taskMeans(perSeed).map(([, m]) => m)
  return {
    mean: round(mean(perSeed.map((s) => mean(Object.values(s))))),
    ...interval95(bootstrapMeans(byTask, resamples), resamples)
  }
}

/**
 * Arm `a` minus arm `b`, paired by task: each task's success averaged over seeds in each arm,
 * their difference per task, and a 95% bootstrap interval of the mean difference that
 * resamples tasks (both arms' values of a drawn task move together). A lower bound above 0
 * says `a` solves more of these tasks than `b` beyond what the choice of tasks explains.
 * Tasks are `a`'s; one `b` lacks counts as 0.
 */
export const pairedDifference = (a: PerSeed, b: PerSeed, resamples = RESAMPLES): PairedInterval => {
  const bMeans = new Map(taskMeans(b))
  const diffs = taskMeans(a).map(([t, m]) => m - (bMeans.get(t) ?? 0))
  return { mean_diff: round(mean(diffs)), ...interval95(bootstrapMeans(diffs, resamples), resamples), tasks: diffs.length }
}

/** Each task's success averaged over seeds, as the report prints it. */
export const perTaskMean = (perSeed: PerSeed): Record<string, number> =>
  Object.fromEntries(taskMeans(perSeed).map(([t, m]) => [t, round(m)]))

/** The arm's mean success over the given tasks (averaged over seeds); null without any. */
export const meanOver = (perSeed: PerSeed, tasks: ReadonlyArray<string>): number | null =>
  tasks.length === 0
    ? null
    : round(mean(taskMeans(perSeed.map((s) => Object.fromEntries(tasks.map((t) => [t, s[t] ?? 0])))).map(([, m]) => m)))
