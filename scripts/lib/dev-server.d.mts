export interface DevServer {
  baseUrl: string;
  port: number;
  /** The IDE's own hot-reload (Vite HMR) port, on loopback. */
  hmrPort: number;
  workerName: string;
  stop(): Promise<void>;
}
export function startDevServer(
  env: NodeJS.ProcessEnv,
  options?: { verbose?: boolean; logFile?: string },
): Promise<DevServer>;
export function removeContainers(workerName: string): void;
export function freePort(): Promise<number>;
