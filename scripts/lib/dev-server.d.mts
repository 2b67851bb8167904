export interface DevServer {
  baseUrl: string;
  port: number;
  workerName: string;
  stop(): Promise<void>;
}
export function startDevServer(
  env: NodeJS.ProcessEnv,
  options?: { verbose?: boolean; logFile?: string },
): Promise<DevServer>;
export function removeContainers(workerName: string): void;
export function freePort(): Promise<number>;
