import { isNotRunningError } from "./http";

/** How long exec() waits by default for a container that is starting. */
const DEFAULT_WAIT_MS = 45_000;

/**
 * `container.exec()` that waits out a container still starting: right after
 * start() the container can count as running before it accepts exec, and a
 * loaded machine takes seconds to get there. Only "not running" is retried;
 * every other error is thrown at once. With `ensureRunning`, a container
 * that stopped meanwhile is started again.
 */
export async function execWhenRunning(
  container: Container,
  argv: string[],
  options: ContainerExecOptions,
  { ensureRunning, waitMs = DEFAULT_WAIT_MS }: { ensureRunning?: () => Promise<void>; waitMs?: number } = {},
): Promise<ExecProcess> {
  const deadline = Date.now() + waitMs;
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    try {
      return await container.exec(argv, options);
    } catch (error) {
      if (Date.now() >= deadline || !isNotRunningError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (ensureRunning && !container.running) await ensureRunning();
    }
  }
}
