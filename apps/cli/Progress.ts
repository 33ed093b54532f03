/**
 * Progress on stderr for long work (a run's rounds): a bar redrawn in place on a terminal,
 * a line every 10% otherwise (CI logs), and plain lines between bars.
 *
 * @example
 * const p = new Progress("run"); p.start("round 1/2", 30); p.count("pass"); p.done("round 1: pass 4, …")
 */
export class Progress {
  private label = ""
  private total = 0
  private counts = new Map<string, number>()
  private steps = 0
  private lastDecile = -1
  private readonly tty = process.stderr.isTTY === true

  constructor(private readonly prefix: string) {}

  line(text: string): void {
    this.clear()
    process.stderr.write(`${this.prefix}: ${text}\n`)
    this.draw()
  }

  start(label: string, total: number): void {
    this.label = label
    this.total = total
    this.counts = new Map()
    this.steps = 0
    this.lastDecile = -1
    this.draw()
  }

  /** More work joined the current bar. */
  expect(n: number): void {
    this.total += n
  }

  /** Environment steps, one by default (shows the bar is alive between trajectories). */
  tick(n = 1): void {
    const before = this.steps
    this.steps += n
    if (this.tty && Math.floor(this.steps / 5) > Math.floor(before / 5)) this.draw()
  }

  count(kind: string): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1)
    this.draw()
  }

  done(text: string): void {
    this.clear()
    this.total = 0
    this.label = ""
    process.stderr.write(`${this.prefix}: ${text}\n`)
  }

  private finished(): number {
    let n = 0
    for (const v of this.counts.values()) n += v
    return n
  }

  private text(): string {
    const n = this.finished()
    const width = 24
    const filled = this.total === 0 ? 0 : Math.max(0, Math.min(width, Math.round((n / this.total) * width)))
    const kinds = [...this.counts.entries()].map(([k, v]) => `${k} ${v}`).join(", ")
    return `${this.prefix}: ${this.label} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${n}/${this.total} trajectories${kinds === "" ? "" : ` (${kinds})`}, ${this.steps} steps`
  }

  private draw(): void {
    if (this.total === 0 || this.label === "") return
    if (this.tty) {
      process.stderr.write(`\r\x1b[2K${this.text()}`)
      return
    }
    const decile = Math.floor((this.finished() / this.total) * 10)
    if (decile === this.lastDecile) return
    this.lastDecile = decile
    process.stderr.write(`${this.text()}\n`)
  }

  private clear(): void {
    if (this.tty && this.total > 0) process.stderr.write("\r\x1b[2K")
  }
}
