import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import { describe, expect, it } from "vitest";
import * as awarenessProtocol from "y-protocols/awareness";
import * as syncProtocol from "y-protocols/sync";
import * as Y from "yjs";
import { MAX_AWARENESS_CLIENTS_PER_PEER, MAX_AWARENESS_STATE_BYTES, SHARED_TEXT } from "../../protocol/collab";
import { collabUser } from "./collab-user";
import {
  BadFrame,
  MESSAGE_AUTH,
  MESSAGE_AWARENESS,
  MESSAGE_SAVE,
  MESSAGE_SYNC,
  type Peer,
  SharedDocument,
} from "./shared-document";

/** A page: its own Y.Doc, answering the server as y-websocket's provider does. */
class Page implements Peer {
  readonly doc = new Y.Doc();
  readonly awareness = new awarenessProtocol.Awareness(this.doc);
  readonly received: Uint8Array[] = [];
  denied: string | undefined;

  constructor(
    private readonly server: SharedDocument,
    readonly canWrite: boolean,
    readonly user = collabUser(canWrite ? "owner" : "viewer@example.com", canWrite ? "Owner" : "Viewer"),
  ) {
    this.doc.on("update", (update: Uint8Array, origin: unknown) => {
      if (origin === this) return;
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MESSAGE_SYNC);
      syncProtocol.writeUpdate(encoder, update);
      this.server.receive(this, encoding.toUint8Array(encoder));
    });
  }

  get text(): string {
    return this.doc.getText(SHARED_TEXT).toString();
  }

  send(message: Uint8Array): void {
    this.received.push(message);
    const decoder = decoding.createDecoder(message);
    const type = decoding.readVarUint(decoder);
    if (type === MESSAGE_SYNC) {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MESSAGE_SYNC);
      syncProtocol.readSyncMessage(decoder, encoder, this.doc, this);
      if (encoding.length(encoder) > 1) this.server.receive(this, encoding.toUint8Array(encoder));
    } else if (type === MESSAGE_AWARENESS) {
      awarenessProtocol.applyAwarenessUpdate(this.awareness, decoding.readVarUint8Array(decoder), this);
    } else if (type === MESSAGE_AUTH) {
      decoding.readVarUint(decoder);
      this.denied = decoding.readVarString(decoder);
    }
  }

  connect(): this {
    this.server.connect(this);
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, MESSAGE_SYNC);
    syncProtocol.writeSyncStep1(encoder, this.doc);
    this.server.receive(this, encoding.toUint8Array(encoder));
    return this;
  }

  announce(state: Record<string, unknown>): void {
    this.awareness.setLocalState(state);
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, MESSAGE_AWARENESS);
    encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(this.awareness, [this.doc.clientID]));
    this.server.receive(this, encoding.toUint8Array(encoder));
  }
}

function documentWith(text: string): SharedDocument {
  const shared = new SharedDocument();
  shared.replaceText(text);
  return shared;
}

describe("SharedDocument", () => {
  it("gives a late joiner the current text and merges two writers' edits", () => {
    const shared = documentWith("hello\n");
    const a = new Page(shared, true).connect();
    expect(a.text).toBe("hello\n");
    a.doc.getText(SHARED_TEXT).insert(0, "A: ");
    const b = new Page(shared, true, collabUser("guest:b", "Bea")).connect();
    expect(b.text).toBe("A: hello\n");
    b.doc.getText(SHARED_TEXT).insert(b.text.length, "from B\n");
    a.doc.getText(SHARED_TEXT).insert(0, "first ");
    expect(a.text).toBe("first A: hello\nfrom B\n");
    expect(b.text).toBe(a.text);
    expect(shared.text.toString()).toBe(a.text);
  });

  it("refuses a viewer's update with permission-denied and applies nothing", () => {
    const shared = documentWith("read only\n");
    const viewer = new Page(shared, false).connect();
    expect(viewer.text).toBe("read only\n");
    expect(viewer.denied).toBeUndefined();
    viewer.doc.getText(SHARED_TEXT).insert(0, "sneaky ");
    expect(viewer.denied).toBe("Viewers cannot change this document.");
    expect(shared.text.toString()).toBe("read only\n");
    const late = new Page(shared, true).connect();
    expect(late.text).toBe("read only\n");
  });

  it("stamps awareness with the peer's own user and drops it when the peer leaves", () => {
    const shared = documentWith("");
    const a = new Page(shared, true).connect();
    const viewer = new Page(shared, false).connect();
    viewer.announce({ user: { name: "Someone Else", color: "#000" }, cursor: null });
    const seen = a.awareness.getStates().get(viewer.doc.clientID) as { user: { name: string } };
    expect(seen.user).toEqual(viewer.user);
    shared.disconnect(viewer);
    expect(a.awareness.getStates().has(viewer.doc.clientID)).toBe(false);
  });

  it("does not let a peer speak for another peer's client id", () => {
    const shared = documentWith("");
    const a = new Page(shared, true).connect();
    a.announce({ cursor: null });
    const b = new Page(shared, true, collabUser("guest:b", "Bea")).connect();
    // B claims A's client id.
    const forged = new awarenessProtocol.Awareness(new Y.Doc());
    forged.clientID = a.doc.clientID;
    forged.setLocalState({ cursor: "forged" });
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, MESSAGE_AWARENESS);
    encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(forged, [a.doc.clientID]));
    shared.receive(b, encoding.toUint8Array(encoder));
    expect(shared.awareness.getStates().get(a.doc.clientID)).toMatchObject({ cursor: null, user: a.user });
  });

  it("moves a client id to the same person's new socket before the old one is seen to close, and to nobody else's", () => {
    const shared = documentWith("");
    const bea = new Page(shared, true, collabUser("guest:b", "Bea")).connect();
    const old = new Page(shared, true).connect();
    old.announce({ cursor: "before" });
    const id = old.doc.clientID;
    // The page reconnected on a new socket (same page, so the same client id
    // and user) while the server still holds the old one open.
    const again = new Page(shared, true).connect();
    again.doc.clientID = id;
    again.awareness.clientID = id;
    // Published under a newer clock than the old socket's, as the page does on a reconnect.
    again.announce({ cursor: "stale" });
    again.announce({ cursor: "after" });
    expect(bea.awareness.getStates().get(id)).toMatchObject({ cursor: "after", user: old.user });
    // The old socket's close no longer takes the page's state with it.
    shared.disconnect(old);
    expect(bea.awareness.getStates().get(id)).toMatchObject({ cursor: "after" });
    // Someone else cannot take the id the same way.
    const forger = new Page(shared, true, collabUser("guest:f", "Flo")).connect();
    forger.doc.clientID = id;
    forger.awareness.clientID = id;
    for (let i = 0; i < 5; i++) forger.announce({ cursor: "forged" });
    expect(bea.awareness.getStates().get(id)).toMatchObject({ cursor: "after", user: old.user });
    shared.disconnect(forger);
    expect(bea.awareness.getStates().get(id)).toMatchObject({ cursor: "after" });
  });

  it("refuses an awareness state over the limit, and a socket speaking for many client ids, before anyone gets them", () => {
    const shared = documentWith("");
    const a = new Page(shared, true).connect();
    const flooder = new Page(shared, true, collabUser("guest:f", "Flo")).connect();
    expect(() => flooder.announce({ files: ["x".repeat(MAX_AWARENESS_STATE_BYTES)] })).toThrow(/over the limit/);
    expect(a.awareness.getStates().has(flooder.doc.clientID)).toBe(false);
    flooder.announce({ files: ["fits.ts"] });
    expect(a.awareness.getStates().get(flooder.doc.clientID)).toMatchObject({ files: ["fits.ts"] });
    // New client ids beyond the few one provider could need.
    const fakes = Array.from({ length: MAX_AWARENESS_CLIENTS_PER_PEER }, (_, i) => {
      const fake = new awarenessProtocol.Awareness(new Y.Doc());
      fake.clientID = 1_000_000 + i;
      // Twice: a new client's first clock (0) is not news to the server.
      fake.setLocalState({ cursor: null });
      fake.setLocalState({ cursor: null });
      return fake;
    });
    const claim = (fake: awarenessProtocol.Awareness) => {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MESSAGE_AWARENESS);
      encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(fake, [fake.clientID]));
      shared.receive(flooder, encoding.toUint8Array(encoder));
    };
    for (const fake of fakes.slice(0, -1)) claim(fake);
    expect(a.awareness.getStates().has(1_000_000)).toBe(true);
    expect(() => claim(fakes.at(-1) as awarenessProtocol.Awareness)).toThrow(/at most 4 awareness clients/);
    expect(a.awareness.getStates().has(1_000_000 + MAX_AWARENESS_CLIENTS_PER_PEER - 1)).toBe(false);
  });

  it("throws BadFrame for frames that are not y-protocols messages", () => {
    const shared = documentWith("kept\n");
    const a = new Page(shared, true).connect();
    expect(() => shared.receive(a, new Uint8Array([]))).toThrow(BadFrame);
    expect(() => shared.receive(a, new Uint8Array([9, 1, 2]))).toThrow(/Unknown message type 9/);
    expect(() => shared.receive(a, new Uint8Array([MESSAGE_SYNC, 2, 200, 1, 7]))).toThrow(BadFrame);
    expect(() => shared.receive(a, new Uint8Array([MESSAGE_AWARENESS, 5, 1]))).toThrow(BadFrame);
    expect(shared.text.toString()).toBe("kept\n");
  });

  it("applies a change on disk as edits every page receives", () => {
    const shared = documentWith("one\ntwo\n");
    const a = new Page(shared, true).connect();
    shared.replaceText("one\ntwo\nthree\n");
    expect(a.text).toBe("one\ntwo\nthree\n");
  });
});

describe("a save on the socket", () => {
  /** Frames of a save's answers a page received: [id, answer]. */
  const answers = (page: Page) =>
    page.received.flatMap((message) => {
      const decoder = decoding.createDecoder(message);
      if (decoding.readVarUint(decoder) !== MESSAGE_SAVE) return [];
      return [[decoding.readVarUint(decoder), JSON.parse(decoding.readVarString(decoder))] as const];
    });
  const askSave = (server: SharedDocument, page: Page, id: number) => {
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, MESSAGE_SAVE);
    encoding.writeVarUint(encoder, id);
    server.receive(page, encoding.toUint8Array(encoder));
  };

  it("saves the text with the edits sent before it and answers the page that asked, by its id", async () => {
    const server = new SharedDocument();
    const written: string[] = [];
    const writer = new (class extends Page {
      save = async () => {
        written.push(server.text.toString());
        return {
          saved: {
            file: { path: "a.ts", type: "file" as const, size: 3, modifiedAt: 0, etag: '"e"' },
            text: server.text.toString(),
          },
        };
      };
    })(server, true).connect();
    const other = new Page(server, true).connect();
    writer.doc.getText(SHARED_TEXT).insert(0, "abc");
    askSave(server, writer, 7);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(written).toEqual(["abc"]);
    expect(answers(writer)).toEqual([[7, { saved: expect.objectContaining({ text: "abc" }) }]]);
    expect(answers(other)).toEqual([]);
  });

  it("refuses a viewer's save, and a page's that cannot save", async () => {
    const server = new SharedDocument();
    const viewer = new Page(server, false).connect();
    askSave(server, viewer, 1);
    expect(answers(viewer)).toEqual([[1, { error: { code: "FORBIDDEN", message: expect.any(String) } }]]);
    const editor = new Page(server, true).connect();
    askSave(server, editor, 2);
    expect(answers(editor)).toEqual([[2, { error: expect.objectContaining({ code: "FORBIDDEN" }) }]]);
  });

  it("closes on a save frame without its id", () => {
    const server = new SharedDocument();
    const page = new Page(server, true).connect();
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, MESSAGE_SAVE);
    expect(() => server.receive(page, encoding.toUint8Array(encoder))).toThrow(BadFrame);
  });
});
