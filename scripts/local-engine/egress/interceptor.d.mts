export function connectionHints(
  bytes: Buffer,
  port: number,
): { done: false } | { done: true; sni?: string; hostname?: string; malformed?: boolean };
export function unrelayedMethod(head: Buffer, hints: { hostname?: string }): string | undefined;
export const CONNECT_ANSWER_TIMEOUT_MS: number;
export function startInterceptor(options: {
  port: number;
  egress: () => { host: string; port: number; headers: string[] };
  originalDestination: (client: {
    address: string;
    port: number;
  }) => Promise<{ address: string; port: number } | undefined>;
  mintLeaf: (name: string) => Promise<{ key: string; cert: string }>;
  log: (message: string) => void;
  connectAnswerTimeoutMs?: number;
}): Promise<import("node:net").Server>;
