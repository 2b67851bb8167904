export interface DevServer {
  baseUrl: string;
  port: number;
  /** The IDE's own hot-reload (Vite HMR) port, on loopback. */
  hmrPort: number;
  workerName: string;
  /** workerd's local state (Durable Objects, R2) for this IDE, removed when it stops. */
  stateDir: string;
  /** The dev server's process id, which is also its process group's (workerd runs in it). */
  pid: number | undefined;
  stop(): Promise<void>;
  /** workerd stopped and started again on the same port, persisted state and engine (a Worker restart). */
  restart(): Promise<void>;
}
export function startDevServer(
  env: NodeJS.ProcessEnv,
  options?: { verbose?: boolean; logFile?: string; appBinds?: string[] },
): Promise<DevServer>;
export function removeContainers(workerName: string): void;
export function freePort(): Promise<number>;
