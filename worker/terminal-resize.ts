/**
 * Keeps a PTY at the size the page asked for last. `ExecProcess.resize()` is
 * fire and forget, and locally each call is its own request to the Docker
 * engine, so two resizes in quick succession can land in either order and
 * leave the terminal at the older size. This sends one resize at a time at
 * most every `gapMs`, always the latest size, and sends the latest size again
 * after a burst settles (and once more later), so a late, stale resize is
 * overwritten. Re-sending an unchanged size is free: the kernel signals
 * programs only when the size changes.
 */
export class ResizePump {
  private latest: { cols: number; rows: number } | undefined;
  private applied: { cols: number; rows: number } | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private settles = 0;
  private stopped = false;

  constructor(
    private readonly apply: (cols: number, rows: number) => void,
    private readonly gapMs = 250,
    /** Re-sends of the settled size, each `gapMs` times further apart. */
    private readonly resends = 2,
  ) {}

  resize(cols: number, rows: number): void {
    if (this.stopped) return;
    this.latest = { cols, rows };
    this.settles = 0;
    if (!this.timer) this.flush();
  }

  /** The process ended: nothing more is sent. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private flush(): void {
    this.timer = undefined;
    const size = this.latest;
    if (this.stopped || !size) return;
    const changed = size.cols !== this.applied?.cols || size.rows !== this.applied?.rows;
    if (!changed) {
      if (this.settles >= this.resends) return;
      this.settles++;
    }
    this.applied = size;
    this.apply(size.cols, size.rows);
    this.timer = setTimeout(() => this.flush(), this.gapMs * (changed ? 1 : 2 ** this.settles));
  }
}
