export interface Limits {
  Memory: number;
  MemorySwap: number;
  NanoCpus: number;
  PidsLimit: number;
}
export function rewriteCreate(
  name: string,
  // biome-ignore lint/suspicious/noExplicitAny: Docker's create body is free-form JSON.
  body: Record<string, any>,
  limits: Limits,
  sidecarEnv?: string[],
  appBinds?: string[],
  smallDisks?: boolean,
  // biome-ignore lint/suspicious/noExplicitAny: Docker's create body is free-form JSON.
): Record<string, any>;
export function upgradeAnswer(): (chunk: Buffer) => "pending" | "upgraded" | "refused";
export function rewritePath(method: string | undefined, path: string): string;
export function hostAddresses(): string[];
export function engineAddress(env: NodeJS.ProcessEnv): { socketPath: string } | { host: string; port: number };
export function startEngineProxy(options: {
  env: NodeJS.ProcessEnv;
  limits: Limits;
  log?: (message: string) => void;
  egressGate?: boolean;
  outboundHosts?: Record<string, string>;
  appBinds?: string[];
  smallDisks?: boolean;
}): Promise<{ dockerHost: string; workerVars: Record<string, string>; close(): Promise<void> }>;
export function smallDiskOf(env: unknown): { dir: string; size: string } | undefined;
