export interface Limits {
  Memory: number;
  MemorySwap: number;
  NanoCpus: number;
  PidsLimit: number;
}
// biome-ignore lint/suspicious/noExplicitAny: Docker's create body is free-form JSON.
export function rewriteCreate(name: string, body: Record<string, any>, limits: Limits): Record<string, any>;
export function engineAddress(env: NodeJS.ProcessEnv): { socketPath: string } | { host: string; port: number };
export function startEngineProxy(options: {
  env: NodeJS.ProcessEnv;
  limits: Limits;
  log?: (message: string) => void;
}): Promise<{ dockerHost: string; close(): Promise<void> }>;
