import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";

/**
 * The client address sign-in attempts (and device-login starts) are counted against. Cloudflare always
 * sets CF-Connecting-IP (and replaces a client's own), so in production a
 * request without it did not come through Cloudflare's edge: it is refused
 * rather than counted in one bucket shared by everybody without one. Under
 * `vite dev` the header is whatever the caller sent (workerd keeps a
 * client's own), so nothing a caller sends picks the bucket: the IDE listens
 * on this machine's loopback only, and every local client shares
 * {@link localClients}' one.
 */
export function clientAddress(request: Request, local: boolean): string {
  if (local) return localClients.of(request);
  const address = request.headers.get("CF-Connecting-IP");
  if (address) return address;
  throw new AppError(
    ErrorCode.BAD_REQUEST,
    "This request did not come through Cloudflare (no CF-Connecting-IP), so it cannot be rate limited: use the IDE's own address.",
  );
}

/**
 * The bucket of a local client: always "loopback". The tests' own Worker
 * entry (in worker/testing/) replaces it so tests can stand for several
 * clients; no production code does.
 */
export const localClients = { of: (_request: Request): string => "loopback" };
