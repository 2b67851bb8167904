import { inject } from "vitest";

/** Fetches a path of the IDE under test. */
export function api(path: string, init?: RequestInit): Promise<Response> {
  return fetch(new URL(path, inject("baseUrl")), init);
}

/** A workspace id no other test uses. */
export function uniqueWorkspaceId(prefix = "t"): string {
  return `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
}
