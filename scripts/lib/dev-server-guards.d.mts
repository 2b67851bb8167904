import type { Plugin } from "vite";
export function isValidHostHeader(host: string | undefined): boolean;
export function hasRepeatedHost(rawHeaders: readonly string[]): boolean;
export function isSourceError(error: unknown): boolean;
export function isForeignTransform(url: string): boolean;
export function isPreviewRequest(url: string | undefined, host: string | undefined, previewDomain: string): boolean;
export function isIdeModuleRequest(
  request: { method?: string; url?: string; host?: string },
  previewDomain: string,
): boolean;
export function describeWithCauses(error: unknown): string;
export function mayResend(
  request: { method?: string; headers: Record<string, unknown>; retried: boolean; headersSent: boolean },
  error: unknown,
): boolean;
export function devServerGuards(options: { previewDomain: string }): Plugin[];
