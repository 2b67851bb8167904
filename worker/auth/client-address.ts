import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";

/**
 * The client address sign-in attempts are counted against. Cloudflare always
 * sets CF-Connecting-IP (and replaces a client's own), so in production a
 * request without it did not come through Cloudflare's edge: it is refused
 * rather than counted in one bucket shared by everybody without one. Under
 * `vite dev` nothing sets it: local clients share the loopback bucket, and a
 * test may name its client with the header.
 */
export function clientAddress(request: Request, local: boolean): string {
  const address = request.headers.get("CF-Connecting-IP");
  if (address) return address;
  if (local) return "loopback";
  throw new AppError(
    ErrorCode.BAD_REQUEST,
    "This sign-in did not come through Cloudflare (no CF-Connecting-IP), so it cannot be rate limited: sign in at the IDE's own address.",
  );
}
