/**
 * `GET /ws/workspaces/{id}/ssh`: a WebSocket whose binary frames are the
 * TCP stream to the workspace's sshd, both ways. Text frames carry flow
 * control, JSON `{"ack": N}`: "I have passed on N more bytes of yours".
 *
 * - The server acknowledges what it wrote to sshd; a client that follows
 *   the acks keeps at most TUNNEL_WINDOW_BYTES unacknowledged (the CLI does).
 * - Once the client sent its first ack, the server stops reading from sshd
 *   while more than TUNNEL_WINDOW_BYTES it sent are unacknowledged. A client
 *   that never acks (websocat) is sent to as fast as it comes.
 * Close codes: 1000 sshd closed; 1008 the token or the role it came with
 * ended; 1011 the tunnel failed (its reason says why).
 */
export const TUNNEL_WINDOW_BYTES = 8 * 1024 * 1024;
/** Acknowledge at least every this many bytes passed on (well under the window). */
export const TUNNEL_ACK_BYTES = 256 * 1024;

/** A text frame's ack, or undefined when it is none. */
export function parseTunnelAck(text: string): number | undefined {
  try {
    const value = (JSON.parse(text) as { ack?: unknown }).ack;
    return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}
