export function parseLoopbackTarget(value: string): { host: string; port: number } | undefined;
