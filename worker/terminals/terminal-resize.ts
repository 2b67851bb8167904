/**
 * Keeps a PTY at the size the page asked for last. `ExecProcess.resize()` is
 * fire and forget, and locally each call is its own request to the Docker
 * engine, so two resizes in quick succession can land in either order and
 * leave the terminal at the older size. This sends the latest size, at most
 * one resize every `gapMs`, and sends it again after a burst settles (twice,
 * further apart), so a stale resize that landed late is overwritten.
 * Re-sending an unchanged size is free: the kernel signals programs only when
 * the size changes.
 */
export class ResizePump {
  private latest: { cols: number; rows: number } | undefined;
  private applied: { cols: number; rows: number } | undefined;
  private appliedAt = Number.NEGATIVE_INFINITY;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private resent = 0;
  private stopped = false;

  constructor(
    private readonly apply: (cols: number, rows: number) => void,
    private readonly gapMs = 250,
    private readonly resends = 2,
    private readonly now: () => number = Date.now,
  ) {}

  resize(cols: number, rows: number): void {
    if (this.stopped) return;
    if (cols === this.latest?.cols && rows === this.latest.rows) return;
    this.latest = { cols, rows };
    this.resent = 0;
    // As soon as the gap since the last resize allows.
    this.schedule(Math.max(0, this.appliedAt + this.gapMs - this.now()));
  }

  /** The process ended: nothing more is sent. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delay: number): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (delay === 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), delay);
  }

  private flush(): void {
    this.timer = undefined;
    const size = this.latest;
    if (this.stopped || !size) return;
    const changed = size.cols !== this.applied?.cols || size.rows !== this.applied?.rows;
    if (!changed && this.resent >= this.resends) return;
    if (!changed) this.resent++;
    this.applied = size;
    this.appliedAt = this.now();
    this.apply(size.cols, size.rows);
    this.timer = setTimeout(() => this.flush(), this.gapMs * 2 ** this.resent);
  }
}
