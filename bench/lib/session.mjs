// Signs in to the IDE under benchmark as the owner (password from .dev.vars).
import { readDevVars } from "../../scripts/lib/dev-vars.mjs";

export async function signIn(baseUrl) {
  const response = await fetch(new URL("/api/session", baseUrl), {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: baseUrl },
    body: JSON.stringify({ password: readDevVars().IDE_PASSWORD }),
  });
  if (response.status !== 204) throw new Error(`sign-in failed: ${response.status}`);
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0];
  const doFetch = (path, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("Cookie", cookie);
    headers.set("Origin", baseUrl);
    let body = init.body;
    if (body !== undefined && typeof body === "object" && !(body instanceof Uint8Array)) {
      headers.set("Content-Type", "application/json");
      body = JSON.stringify(body);
    }
    return fetchOnce(new URL(path, baseUrl), { ...init, headers, body });
  };
  return {
    cookie,
    fetch: doFetch,
    async json(path, init) {
      const response = await doFetch(path, init);
      if (!response.ok)
        throw new Error(`${init?.method ?? "GET"} ${path}: ${response.status} ${await response.text()}`);
      return response.json();
    },
  };
}

/** Signs a guest in through an invite link's token, as the join page does; answers its session cookie. */
export async function joinAsGuest(baseUrl, workspace, token, name) {
  const response = await fetch(new URL("/api/invites/accept", baseUrl), {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: baseUrl },
    body: JSON.stringify({ workspace, token, name }),
  });
  if (!response.ok) throw new Error(`joining as ${name}: ${response.status} ${await response.text()}`);
  return (response.headers.get("set-cookie") ?? "").split(";")[0];
}

/**
 * Node's HTTP server closes an idle keep-alive socket after 5 s; a request
 * that reuses it at that moment fails ("other side closed", or a reset)
 * before the server saw it. Benchmarks idle between requests (docker exec),
 * so that one failure is tried again; the race is not what is measured.
 */
async function fetchOnce(url, init) {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (error?.cause?.code !== "UND_ERR_SOCKET" && error?.cause?.code !== "ECONNRESET") throw error;
    return fetch(url, init);
  }
}
