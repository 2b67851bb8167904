/**
 * A page whose socket drops and comes back sees the others again at once,
 * and they see it, though nobody's state changed meanwhile: real y-websocket
 * providers against the real SharedDocument, over sockets in memory.
 */
import { afterEach, describe, expect, it } from "vitest";
import { WebsocketProvider } from "y-websocket";
import * as Y from "yjs";
import { keepAwarenessAcrossReconnects } from "../../app/collab/awareness-reconnect";
import { collabUser } from "../../worker/collab/collab-user";
import { type Peer, SharedDocument } from "../../worker/collab/shared-document";

/** A WebSocket in memory to one SharedDocument; `?user=` in its URL says whose page it is. */
function socketsTo(server: SharedDocument) {
  return class MemorySocket {
    static readonly CONNECTING = 0;
    static readonly OPEN = 1;
    static readonly CLOSING = 2;
    static readonly CLOSED = 3;
    binaryType = "arraybuffer";
    readyState = MemorySocket.CONNECTING;
    onopen: (() => void) | null = null;
    onmessage: ((event: { data: ArrayBuffer }) => void) | null = null;
    onclose: ((event: { code: number; reason: string }) => void) | null = null;
    onerror: (() => void) | null = null;
    private readonly peer: Peer;

    constructor(url: string) {
      const user = new URL(url).searchParams.get("user") ?? "nobody";
      this.peer = {
        canWrite: true,
        user: collabUser(user, user),
        send: (message) => {
          const data = message.slice().buffer;
          setTimeout(() => {
            if (this.readyState === MemorySocket.OPEN) this.onmessage?.({ data });
          });
        },
      };
      setTimeout(() => {
        this.readyState = MemorySocket.OPEN;
        this.onopen?.();
        server.connect(this.peer);
      });
    }

    send(data: Uint8Array): void {
      const copy = new Uint8Array(data);
      setTimeout(() => server.receive(this.peer, copy));
    }

    close(): void {
      if (this.readyState === MemorySocket.CLOSED) return;
      this.readyState = MemorySocket.CLOSED;
      server.disconnect(this.peer);
      setTimeout(() => this.onclose?.({ code: 1000, reason: "" }));
    }
  };
}

const providers: WebsocketProvider[] = [];
afterEach(() => {
  for (const provider of providers.splice(0)) provider.destroy();
});

function page(server: SharedDocument, user: string, keep: boolean): WebsocketProvider {
  const provider = new WebsocketProvider("ws://memory", "presence", new Y.Doc(), {
    params: { user },
    disableBc: true,
    WebSocketPolyfill: socketsTo(server) as unknown as typeof WebSocket,
  });
  if (keep) keepAwarenessAcrossReconnects(provider);
  provider.awareness.setLocalState({ active: `${user}.txt` });
  providers.push(provider);
  return provider;
}

/** The users whose states a page holds, but its own. */
const others = (provider: WebsocketProvider) =>
  [...provider.awareness.getStates()]
    .filter(([id]) => id !== provider.awareness.clientID)
    .map(([, state]) => (state.user as { id: string }).id)
    .sort();

const synced = (provider: WebsocketProvider) =>
  new Promise<void>((resolve) => {
    const listener = (isSynced: boolean) => {
      if (!isSynced) return;
      provider.off("sync", listener);
      resolve();
    };
    provider.on("sync", listener);
  });

async function dropAndReconnect(keep: boolean) {
  const server = new SharedDocument();
  const owner = page(server, "owner", keep);
  const guest = page(server, "guest", keep);
  await expect.poll(() => others(guest)).toEqual(["owner"]);
  await expect.poll(() => others(owner)).toEqual(["guest"]);

  const back = synced(guest);
  guest.ws?.close();
  await back;
  // A moment for anything still on its way (each message is one timer tick here).
  await new Promise((resolve) => setTimeout(resolve, 50));
  return { owner: others(owner), guest: others(guest) };
}

describe("awareness across a reconnect", () => {
  it("brings both sides back at once, with nobody's state changed", async () => {
    expect(await dropAndReconnect(true)).toEqual({ owner: ["guest"], guest: ["owner"] });
  });

  it("is needed: without it, y-websocket leaves each side without the other", async () => {
    expect(await dropAndReconnect(false)).toEqual({ owner: [], guest: [] });
  });
});
