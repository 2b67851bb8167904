import { inject } from "vitest";

/**
 * Fetches a path of the IDE under test, on a connection of its own. Tests
 * block their event loop in synchronous `docker exec`s: a kept-alive socket
 * that the server closed meanwhile (Node closes idle ones after 5 s) would
 * still look open to the next request, which then fails with "other side
 * closed" before the server saw it. Without reuse there is no such socket.
 */
export function api(path: string, init?: RequestInit): Promise<Response> {
  const headers = new Headers(init?.headers);
  headers.set("Connection", "close");
  return fetch(new URL(path, inject("baseUrl")), { ...init, headers });
}
