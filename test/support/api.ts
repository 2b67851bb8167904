import { inject } from "vitest";

/** Fetches a path of the IDE under test. */
export function api(path: string, init?: RequestInit): Promise<Response> {
  return fetch(new URL(path, inject("baseUrl")), init);
}
