import type { networkInterfaces } from "node:os";
export function parseLoopbackTarget(value: string): { host: string; port: number } | undefined;
export function containerAddress(interfaces?: ReturnType<typeof networkInterfaces>): string | undefined;
export function relayTarget(value: string, address: string | undefined): { host: string; port: number } | undefined;
