import { describe } from "./errors";

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

/** Runs a command to completion and returns stdout; throws with stderr when it exits non-zero. */
export async function run(
  container: Container,
  argv: string[],
  { waitMs = 0 }: { waitMs?: number } = {},
): Promise<string> {
  const proc = await execWhenRunning(container, argv, { cwd: "/" }, { waitMs });
  const output = await proc.output();
  const decoder = new TextDecoder();
  if (output.exitCode !== 0) {
    throw new Error(`${argv[0]} exited with ${output.exitCode}: ${decoder.decode(output.stderr).trim()}`);
  }
  return decoder.decode(output.stdout);
}

/**
 * exec() on a container that is not up (yet): "exec() cannot be called on a
 * container that is not running", "exec() requires a running container".
 */
export function isNotRunningError(error: unknown): boolean {
  // "is paused": a snapshot freezes the container while it is taken.
  return /not running|requires a running container|is paused/i.test(describe(error));
}

/** The Durable Object's container; a configuration error when it has none. */
export function requireContainer(ctx: DurableObjectState): Container {
  const container = ctx.container;
  if (!container) throw new Error("This Durable Object has no container: check `containers` in wrangler.jsonc.");
  return container;
}
