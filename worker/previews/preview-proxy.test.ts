import { describe, expect, it } from "vitest";
import { notModified, proxyToDevServer, takeConditions } from "./preview-proxy";

const URL_ = "http://5173-ws-token.previews.test/src/App.tsx";
const ETAG = 'W/"a5ac-GDjlUyYNrYRGxUNrbXQH6Uy2LkA"';

/** A stand-in for getTcpPort().fetch(): answers from a script, and records what it was sent. */
function portFetch(...answers: (Response | Error)[]) {
  const seen: Request[] = [];
  const fetchPort = async (request: Request) => {
    seen.push(request);
    const next = answers.shift();
    if (!next) throw new Error("no more answers scripted");
    if (next instanceof Error) throw next;
    return next;
  };
  return { fetchPort, seen };
}

const closed = () => new Error("Container port connection closed unexpectedly.");
const nothingListens = () => new Error("Container is not listening to port 5173");
const module = () =>
  new Response("export {}", { headers: { ETag: ETAG, "Cache-Control": "no-cache", Vary: "Origin" } });

describe("the preview proxy", () => {
  it("answers a conditional GET 304 itself and never passes the condition on", async () => {
    const { fetchPort, seen } = portFetch(module());
    const request = new Request(URL_, { headers: { "If-None-Match": ETAG } });
    const response = await proxyToDevServer(request, 5173, fetchPort);
    expect(response.status).toBe(304);
    expect(response.headers.get("etag")).toBe(ETAG);
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("vary")).toBe("Origin");
    expect(await response.text()).toBe("");
    expect(seen[0]?.headers.has("if-none-match")).toBe(false);
  });

  it("passes the dev server's answer through when the browser's copy is stale", async () => {
    const { fetchPort } = portFetch(module());
    const request = new Request(URL_, { headers: { "If-None-Match": 'W/"old"' } });
    const response = await proxyToDevServer(request, 5173, fetchPort);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("export {}");
  });

  it("tries a GET once more when its connection failed before an answer, and only once", async () => {
    const again = portFetch(closed(), module());
    expect((await proxyToDevServer(new Request(URL_), 5173, again.fetchPort)).status).toBe(200);
    expect(again.seen).toHaveLength(2);

    const twice = portFetch(closed(), closed(), module());
    const failed = await proxyToDevServer(new Request(URL_), 5173, twice.fetchPort);
    expect(failed.status).toBe(502);
    expect(await failed.text()).toContain("did not answer");
    expect(twice.seen).toHaveLength(2);
  });

  it("never sends a POST twice", async () => {
    const { fetchPort, seen } = portFetch(closed(), module());
    const response = await proxyToDevServer(new Request(URL_, { method: "POST", body: "x" }), 5173, fetchPort);
    expect(response.status).toBe(502);
    expect(seen).toHaveLength(1);
  });

  it("says nothing is answering only when nothing listens on the port", async () => {
    const { fetchPort, seen } = portFetch(nothingListens());
    const response = await proxyToDevServer(new Request(URL_), 5173, fetchPort);
    expect(response.status).toBe(502);
    expect(await response.text()).toContain("Nothing is answering on port 5173");
    expect(seen).toHaveLength(1);
  });
});

describe("validators (RFC 9110 §13.1.2, §13.2.2)", () => {
  const headers = (init: Record<string, string>) => new Headers(init);

  it("compares entity tags weakly, in lists, and * matches any", () => {
    const response = headers({ ETag: '"abc"' });
    expect(notModified({ ifNoneMatch: 'W/"abc"', ifModifiedSince: null }, response)).toBe(true);
    expect(notModified({ ifNoneMatch: '"x", W/"abc"', ifModifiedSince: null }, response)).toBe(true);
    expect(notModified({ ifNoneMatch: '"abcd"', ifModifiedSince: null }, response)).toBe(false);
    expect(notModified({ ifNoneMatch: "*", ifModifiedSince: null }, headers({}))).toBe(true);
    expect(notModified({ ifNoneMatch: '"abc"', ifModifiedSince: null }, headers({}))).toBe(false);
  });

  it("uses If-Modified-Since only without If-None-Match", () => {
    const response = headers({ "Last-Modified": "Mon, 30 Nov 2026 10:00:00 GMT", ETag: '"new"' });
    const since = "Mon, 30 Nov 2026 11:00:00 GMT";
    expect(notModified({ ifNoneMatch: null, ifModifiedSince: since }, response)).toBe(true);
    expect(notModified({ ifNoneMatch: '"old"', ifModifiedSince: since }, response)).toBe(false);
    expect(notModified({ ifNoneMatch: null, ifModifiedSince: "Mon, 30 Nov 2026 09:00:00 GMT" }, response)).toBe(false);
    expect(notModified({ ifNoneMatch: null, ifModifiedSince: "not a date" }, response)).toBe(false);
  });

  it("takes conditions off the request, and leaves other requests alone", () => {
    const conditional = headers({ "If-None-Match": ETAG, "If-Modified-Since": "x", Accept: "*/*" });
    expect(takeConditions(conditional)).toEqual({ ifNoneMatch: ETAG, ifModifiedSince: "x" });
    expect([...conditional.keys()]).toEqual(["accept"]);
    expect(takeConditions(headers({ Accept: "*/*" }))).toBeUndefined();
  });
});
