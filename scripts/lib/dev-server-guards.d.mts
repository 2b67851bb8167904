import type { Plugin } from "vite";
export function isValidHostHeader(host: string | undefined): boolean;
export function isSourceError(error: unknown): boolean;
export function devServerGuards(): Plugin[];
