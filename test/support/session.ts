/**
 * Acting as the signed-in owner in tests. Every integration and e2e test that
 * touches a workspace goes through these helpers, so the sign-in rules apply
 * to all of them.
 */
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { inject } from "vitest";
import WebSocket from "ws";
import { api } from "./api";
import { openPage, untilShown } from "./browser";

let cookie: Promise<string> | undefined;

/** The owner's session cookie (`name=value`), signed in once per test file. */
export function ownerCookie(): Promise<string> {
  cookie ??= (async () => {
    const response = await api("/api/session", {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: inject("baseUrl") },
      body: JSON.stringify({ password: inject("password") }),
    });
    if (response.status !== 204) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
    const setCookie = response.headers.get("set-cookie") ?? "";
    return setCookie.split(";")[0] ?? "";
  })();
  return cookie;
}

/**
 * Fetches as the signed-in owner, from the app's own origin. A 401 fails the
 * test: nothing a test does ends this file's session unless it says so (a
 * test that signs the owner out everywhere calls `ownerSessionEnded()`, and
 * a test that wants to see a 401 asks without a session, through `api()`).
 */
export async function ownerApi(path: string, init: RequestInit = {}): Promise<Response> {
  const response = await ownerApiOnce(path, init);
  if (response.status === 401) {
    throw new Error(
      `${init.method ?? "GET"} ${path}: 401, the owner's session ended unexpectedly: ${await response.text()}`,
    );
  }
  return response;
}

/** After a test ended the owner's sessions itself (signed out everywhere): the next request signs in again. */
export function ownerSessionEnded(): void {
  cookie = undefined;
}

async function ownerApiOnce(path: string, init: RequestInit): Promise<Response> {
  const headers = new Headers(init.headers);
  const session = await ownerCookie();
  if (session) headers.set("Cookie", session);
  if (!headers.has("Origin")) headers.set("Origin", inject("baseUrl"));
  return api(path, { ...init, headers });
}

/**
 * Creates a workspace owned by the owner and returns its id. It starts from
 * the Vite + React template unless `template` says "empty".
 */
export async function createWorkspace(
  name = "test workspace",
  template: "vite-react" | "empty" = "vite-react",
): Promise<string> {
  const response = await ownerApi("/api/workspaces", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name, template }),
  });
  if (response.status !== 201) throw new Error(`creating a workspace failed: ${response.status}`);
  const { id } = (await response.json()) as { id: string };
  return id;
}

/** Signs in through the sign-in page (when there is one) and opens a workspace in a new page. */
export async function openWorkspace(
  browser: Browser,
  id: string,
  options?: BrowserContextOptions,
): Promise<{ page: Page; errors: string[] }> {
  const opened = await openPage(browser, `/workspaces/${id}`, options);
  const { page } = opened;
  // The app first asks who is signed in, then shows sign-in or the workspace.
  await untilShown(page, '[data-testid="sign-in"], [data-testid="workspace-name"]');
  if (await page.getByTestId("sign-in").isVisible()) {
    await page.getByLabel("Password").fill(inject("password"));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`**/workspaces/${id}`);
  }
  return opened;
}

/** Opens a WebSocket to the IDE under test as the signed-in owner (Node `ws` client). */
export async function ownerWebSocket(path: string, protocols?: string[]): Promise<WebSocket> {
  const url = new URL(path, inject("baseUrl"));
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const headers: Record<string, string> = { Origin: inject("baseUrl") };
  const session = await ownerCookie();
  if (session) headers.Cookie = session;
  return new WebSocket(url, protocols, { headers });
}
