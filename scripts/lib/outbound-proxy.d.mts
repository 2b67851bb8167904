import type { IncomingHttpHeaders } from "node:http";
import type { LookupFunction } from "node:net";

export const URL_HEADER: string;
export const TOKEN_HEADER: string;
export const FAILURE_HEADER: string;
export const ANSWER_TIMEOUT_MS: number;
export class RefusedAddress extends Error {
  constructor(host: string, address: string);
  code: string;
  host: string;
  address: string;
}
export function checkedLookup(
  isAllowed: (address: string) => boolean,
  fixedHosts?: Record<string, string>,
): LookupFunction;
export function checkProxyRequest(
  headers: IncomingHttpHeaders,
  token: string,
): { ok: true; target: URL } | { ok: false; status: number; reason: string };
export function failureOf(error: unknown): string;
export function startOutboundProxy(options: {
  token: string;
  hostAddresses: string[];
  fixedHosts?: Record<string, string>;
  log?: (message: string) => void;
  isAllowed?: (address: string) => boolean;
  answerTimeoutMs?: number;
}): Promise<{ url: string; close(): Promise<void> }>;
