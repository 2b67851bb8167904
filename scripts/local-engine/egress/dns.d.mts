import type { Packet } from "dns-packet";
export const ALLOWED_IPV4: string;
export const ALLOWED_IPV6: string;
export function matchesDnsPattern(pattern: string, name: string): boolean;
export function isAllowedName(patterns: string[], name: string): boolean;
export function localAnswer(query: Packet, allowed: boolean): Buffer;
