/**
 * Bridges a WebSocket from the container to the browser through the Durable
 * Object, accepting both ends (seed-guide §3.4): a socket that only passed
 * through would not keep the container running.
 */
export interface Bridge {
  /** Closes both ends, e.g. when the grant that opened it is revoked. */
  close(code: number, reason: string): void;
}

export function bridgeWebSocket(
  upstreamResponse: Response,
  onClose: (bridge: Bridge) => void,
): { response: Response; bridge: Bridge } {
  const upstream = upstreamResponse.webSocket;
  if (!upstream) throw new Error("bridgeWebSocket needs a WebSocket response");
  const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
  upstream.binaryType = "arraybuffer";
  server.binaryType = "arraybuffer";
  upstream.accept();
  server.accept();

  let closed = false;
  const bridge: Bridge = {
    close(code, reason) {
      safeClose(server, code, reason);
      safeClose(upstream, 1000, reason);
      finish();
    },
  };
  const finish = () => {
    if (closed) return;
    closed = true;
    onClose(bridge);
  };
  const relay = (from: WebSocket, to: WebSocket) => {
    from.addEventListener("message", (event) => {
      try {
        to.send(event.data);
      } catch {
        safeClose(from, 1011, "The other side closed");
      }
    });
    from.addEventListener("close", (event) => {
      // 1005 and 1006 report a missing or abnormal close and cannot be sent.
      const code = event.code === 1005 || event.code === 1006 ? 1000 : event.code;
      safeClose(to, code, event.reason);
      finish();
    });
    from.addEventListener("error", () => {
      safeClose(to, 1011, "The other side failed");
      finish();
    });
  };
  relay(server, upstream);
  relay(upstream, server);

  const headers = new Headers();
  // The browser drops a socket whose chosen subprotocol (Vite: "vite-hmr") does not come back.
  const protocol = upstreamResponse.headers.get("Sec-WebSocket-Protocol");
  if (protocol) headers.set("Sec-WebSocket-Protocol", protocol);
  return { response: new Response(null, { status: 101, webSocket: client, headers }), bridge };
}

function safeClose(socket: WebSocket, code: number, reason: string): void {
  try {
    socket.close(code, reason.slice(0, 120));
  } catch {
    // Already closed.
  }
}
