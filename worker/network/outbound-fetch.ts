/**
 * How a workspace's allowed request leaves the Worker (issue 42).
 *
 * The decision that matters is the address the host resolves to, at the
 * moment of connecting: a name is whatever its DNS says (`vm`,
 * `ip6-localhost`, a public name pointed at 127.0.0.1). On Cloudflare the
 * platform's fetch() cannot reach private addresses, so a request goes out
 * as it is. On the local platform workerd would connect wherever the name
 * points, this machine included, so the request goes through the outbound
 * proxy the engine proxy started (scripts/lib/outbound-proxy.mjs), which
 * resolves the name and refuses loopback, link-local, private, CGNAT,
 * unspecified and this machine's own addresses inside the connect itself.
 * Under `vite dev` without that proxy nothing leaves (a plain `npm run dev`
 * has no engine proxy): refused rather than unchecked.
 */

/** The proxy's headers (scripts/lib/outbound-proxy.mjs). */
const URL_HEADER = "X-Cloud-IDE-Outbound-Url";
const TOKEN_HEADER = "X-Cloud-IDE-Outbound-Token";
const FAILURE_HEADER = "X-Cloud-IDE-Outbound-Failure";

export type UnreachableReason = "dns" | "connection" | "timeout" | "tls" | "other";

/** The host resolved to an address no workspace may reach. */
export class OutboundRefused extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to ${address}`);
  }
}

/** The request could not be delivered; `reason` picks the IDE's own words for it. */
export class OutboundUnreachable extends Error {
  constructor(
    readonly reason: UnreachableReason,
    detail: string,
  ) {
    super(detail);
  }
}

/** The local platform's proxy, when the engine proxy named one. */
export interface LocalOutbound {
  proxy: string;
  token: string;
}

export function localOutbound(
  env: Pick<Env, "LOCAL_OUTBOUND_PROXY" | "LOCAL_OUTBOUND_TOKEN">,
): LocalOutbound | undefined {
  const proxy = env.LOCAL_OUTBOUND_PROXY;
  const token = env.LOCAL_OUTBOUND_TOKEN;
  return proxy && token ? { proxy, token } : undefined;
}

/**
 * Sends an allowed request: through the local proxy when there is one, else
 * with fetch() (Cloudflare), except under `vite dev` (`devServer`), where an
 * unchecked fetch could reach this machine. Throws OutboundRefused or
 * OutboundUnreachable.
 */
export async function sendOutbound(
  request: Request,
  local: LocalOutbound | undefined,
  devServer: boolean,
): Promise<Response> {
  if (!local) {
    if (devServer) {
      throw new OutboundUnreachable(
        "other",
        "no outbound proxy under vite dev: start the IDE with npm start, which checks where requests resolve",
      );
    }
    try {
      return await fetch(request);
    } catch (error) {
      throw new OutboundUnreachable("other", error instanceof Error ? error.message : String(error));
    }
  }
  const headers = new Headers(request.headers);
  headers.set(URL_HEADER, request.url);
  headers.set(TOKEN_HEADER, local.token);
  let response: Response;
  try {
    response = await fetch(local.proxy, {
      method: request.method,
      headers,
      body: request.body,
      redirect: "manual",
      signal: request.signal,
      // Node's fetch (the unit tests) wants it for a streamed body; workerd ignores it.
      ...({ duplex: "half" } as object),
    });
  } catch (error) {
    throw new OutboundUnreachable("other", `the outbound proxy: ${error instanceof Error ? error.message : error}`);
  }
  const failure = response.headers.get(FAILURE_HEADER);
  if (failure === null) return response;
  await response.body?.cancel().catch(() => {});
  const refused = /^refused (.+)$/.exec(failure);
  if (refused) throw new OutboundRefused(new URL(request.url).hostname, refused[1] ?? "");
  const reason = (["dns", "connection", "timeout", "tls"] as const).find((r) => r === failure) ?? "other";
  throw new OutboundUnreachable(reason, `the outbound proxy answered ${response.status} (${failure})`);
}

/**
 * `answer`, unless it has not begun within `ms`: then `abandon` is aborted
 * (the request stops) and this throws OutboundUnreachable("timeout"). Only
 * the wait for the answer's head is bounded; its body streams on.
 */
export async function answerWithin(answer: Promise<Response>, ms: number, abandon: AbortController): Promise<Response> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abandon.abort();
      reject(new OutboundUnreachable("timeout", `no answer within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([answer, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Headers the Worker or a server behind it may trust, which a container must
 * not set: the client address Cloudflare writes (CF-Connecting-IP and every
 * `CF-` header), forwarding chains, and the IDE's own internal headers
 * (`X-Cloud-IDE-*`: the caller, the session, a preview's grant, an agent).
 */
export function withoutTrustedHeaders(headers: Headers): Headers {
  const kept = new Headers();
  for (const [name, value] of headers) {
    if (isTrustedHeader(name)) continue;
    kept.append(name, value);
  }
  return kept;
}

export function isTrustedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    lower.startsWith("cf-") ||
    lower.startsWith("x-cloud-ide-") ||
    lower.startsWith("x-forwarded-") ||
    lower === "forwarded" ||
    lower === "x-real-ip" ||
    lower === "true-client-ip"
  );
}
