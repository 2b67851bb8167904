/**
 * Who may touch the container's disk when. File operations share it; a
 * snapshot (and the stop that follows it) has it alone: it waits for the
 * file operations under way, and new ones wait until it is done, so no
 * write lands between a snapshot and the stop after it, where it would be
 * lost. Exclusive operations run one at a time, in order; one that waits
 * holds back new shared ones (so saves are never starved).
 */
export class DiskLock {
  private tail: Promise<void> = Promise.resolve();
  /** Exclusive operations queued or running. */
  private writers = 0;
  /** Shared operations running. */
  private readers = 0;
  private drained: (() => void)[] = [];

  exclusive<T>(operation: () => Promise<T>): Promise<T> {
    this.writers++;
    const result = this.tail.then(async () => {
      while (this.readers > 0) await new Promise<void>((resolve) => this.drained.push(resolve));
      return operation();
    });
    this.tail = result.then(
      () => {
        this.writers--;
      },
      () => {
        this.writers--;
      },
    );
    return result;
  }

  /** Never call from inside an exclusive operation: it would wait for itself. */
  async shared<T>(operation: () => Promise<T>): Promise<T> {
    while (this.writers > 0) await this.tail;
    this.readers++;
    try {
      return await operation();
    } finally {
      this.readers--;
      if (this.readers === 0) for (const resolve of this.drained.splice(0)) resolve();
    }
  }
}
