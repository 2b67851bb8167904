export function connectionHints(
  bytes: Buffer,
  port: number,
): { done: false } | { done: true; sni?: string; hostname?: string };
