export const DEV_VARS: string;
export function readDevVars(): Record<string, string>;
export function ensureDevVars(): Record<string, string>;
