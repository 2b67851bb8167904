import type { Limits } from "./engine-proxy.mjs";
export const INSTANCE_TYPES: Record<string, { vcpu: number; memoryMib: number }>;
export const LOCAL_PIDS_LIMIT: number;
export function dockerLimits(instanceType: string): Limits;
export function configuredInstanceType(root: string): string;
