export interface DeployedServer {
  baseUrl: string;
  port: number;
  workerName: string;
  stop(): Promise<void>;
}
/** `vite build`, then plain `wrangler dev` on its output, with real containers. */
export function startWranglerDev(env: NodeJS.ProcessEnv, options?: { logFile?: string }): Promise<DeployedServer>;
