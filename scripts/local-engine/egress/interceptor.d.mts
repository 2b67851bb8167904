export function connectionHints(
  bytes: Buffer,
  port: number,
): { done: false } | { done: true; sni?: string; hostname?: string; malformed?: boolean };
export function unrelayedMethod(head: Buffer, hints: { hostname?: string }): string | undefined;
