import type { Awareness } from "y-protocols/awareness";

/** What of a y-websocket provider this needs (its awareness, and its status events). */
export interface AwarenessProvider {
  readonly awareness: Awareness;
  on(name: "status", listener: (event: { status: string }) => void): void;
}

/**
 * Makes a reconnect bring everyone back at once. When its socket drops,
 * y-websocket forgets the others' awareness states but keeps their clocks,
 * and y-protocols takes a state only under a newer clock; so after a
 * reconnect the server's replay of the others' unchanged states was ignored
 * here, and this page's own (re-sent under its old clock) was ignored by the
 * server, which had removed it when the socket dropped. People and cursors
 * stayed gone until each renewed itself, up to 30 s (yjs/y-websocket#122).
 * So: on a drop, the others' clocks are forgotten with their states; on a
 * reconnect, this page's own state goes out again under a new clock.
 * For the provider's life: its destroy() drops the listener with the rest.
 */
export function keepAwarenessAcrossReconnects(provider: AwarenessProvider): void {
  const { awareness } = provider;
  const status = ({ status }: { status: string }) => {
    if (status === "disconnected") {
      for (const id of [...awareness.meta.keys()]) {
        if (id !== awareness.clientID && !awareness.states.has(id)) awareness.meta.delete(id);
      }
    } else if (status === "connected") {
      const state = awareness.getLocalState();
      if (state !== null) awareness.setLocalState(state);
    }
  };
  provider.on("status", status);
}
