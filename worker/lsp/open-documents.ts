/**
 * The files the pages have open on one shared language server. Each page
 * (a "peer") opens, changes and closes files with its own version numbers;
 * the server must see each file opened once, closed when the last page
 * closes it, and versions that only go up. So this keeps every page's text
 * of every file it has open, and the text and version the server has, and
 * turns each page's notification into what the server needs (nothing, the
 * same change, or the page's whole text when the server holds another
 * page's edits).
 */
import { applyContentChanges, type ContentChange } from "./document-text";
import type { JsonRpcMessage } from "./json-rpc";

interface Owner {
  text: string;
  version: number;
  /** Server version → this page's version, for the last changes it made (to rewrite diagnostics). */
  versions: Map<number, number>;
}

interface Document {
  languageId: string;
  owners: Map<unknown, Owner>;
  /** What the server has; undefined while it does not have the file open (before a start). */
  serverText: string | undefined;
  serverVersion: number;
}

const KEPT_VERSIONS = 32;

export class OpenDocuments<Peer> {
  private readonly documents = new Map<string, Document>();

  /** A page opened a file. `serverUp`: whether to say anything to the server now. */
  open(
    peer: Peer,
    { uri, languageId, version, text }: { uri: string; languageId: string; version: number; text: string },
    serverUp: boolean,
  ): JsonRpcMessage[] {
    let document = this.documents.get(uri);
    if (!document) {
      document = { languageId, owners: new Map(), serverText: undefined, serverVersion: 0 };
      this.documents.set(uri, document);
    }
    document.owners.set(peer, { text, version, versions: new Map() });
    return serverUp ? this.sync(uri, document, peer) : [];
  }

  /** A page changed a file it has open; false when it has not opened it (the change is dropped). */
  change(
    peer: Peer,
    uri: string,
    version: number,
    changes: readonly ContentChange[],
    serverUp: boolean,
  ): JsonRpcMessage[] | false {
    const document = this.documents.get(uri);
    const owner = document?.owners.get(peer);
    if (!document || !owner) return false;
    // The page's changes apply to the server's text only when that is the page's text.
    const inStep = document.serverText !== undefined && document.serverText === owner.text;
    owner.text = applyContentChanges(owner.text, changes);
    owner.version = version;
    if (!serverUp) return [];
    return this.sync(uri, document, peer, inStep ? changes : undefined);
  }

  /** A page closed a file (or went away). */
  close(peer: Peer, uri: string, serverUp: boolean): JsonRpcMessage[] {
    const document = this.documents.get(uri);
    const owner = document?.owners.get(peer);
    if (!document || !owner) return [];
    document.owners.delete(peer);
    const next = document.owners.keys().next();
    if (next.done) {
      this.documents.delete(uri);
      if (!serverUp || document.serverText === undefined) return [];
      return [notification("textDocument/didClose", { textDocument: { uri } })];
    }
    // Another page still has it: the server gets that page's text if it differs.
    return serverUp ? this.sync(uri, document, next.value) : [];
  }

  /** Everything a page had open, closed (the page went away). */
  closeAll(peer: Peer, serverUp: boolean): JsonRpcMessage[] {
    const messages: JsonRpcMessage[] = [];
    for (const [uri, document] of [...this.documents]) {
      if (document.owners.has(peer)) messages.push(...this.close(peer, uri, serverUp));
    }
    return messages;
  }

  /** The server stopped: it has nothing open any more. */
  serverStopped(): void {
    for (const document of this.documents.values()) document.serverText = undefined;
  }

  /** After a (re)start: every open file, with the text of one page that has it. */
  reopen(): JsonRpcMessage[] {
    const messages: JsonRpcMessage[] = [];
    for (const [uri, document] of this.documents) {
      const peer = document.owners.keys().next();
      if (!peer.done) messages.push(...this.sync(uri, document, peer.value));
    }
    return messages;
  }

  has(peer: Peer, uri: string): boolean {
    return this.documents.get(uri)?.owners.has(peer) ?? false;
  }

  /** The pages that have this file open. */
  owners(uri: string): Peer[] {
    return [...(this.documents.get(uri)?.owners.keys() ?? [])] as Peer[];
  }

  get uris(): string[] {
    return [...this.documents.keys()];
  }

  /**
   * The page's own version for diagnostics the server published for
   * `serverVersion` (undefined when they are for text this page never had:
   * they are then sent without a version).
   */
  pageVersion(peer: Peer, uri: string, serverVersion: number | undefined): number | undefined {
    const document = this.documents.get(uri);
    const owner = document?.owners.get(peer);
    if (!document || !owner || serverVersion === undefined) return undefined;
    const mapped = owner.versions.get(serverVersion);
    if (mapped !== undefined) return mapped;
    if (serverVersion === document.serverVersion && document.serverText === owner.text) return owner.version;
    return undefined;
  }

  /** The page's version of the file when the server has exactly the page's text, else undefined. */
  inStepVersion(peer: Peer, uri: string): number | undefined {
    const document = this.documents.get(uri);
    const owner = document?.owners.get(peer);
    return owner && document?.serverText === owner.text ? owner.version : undefined;
  }

  /** What the server needs to hold `peer`'s text of the file (its changes, when given and in step). */
  private sync(uri: string, document: Document, peer: unknown, changes?: readonly ContentChange[]): JsonRpcMessage[] {
    const owner = document.owners.get(peer) as Owner;
    if (document.serverText === owner.text && !changes) {
      this.record(document, owner);
      return [];
    }
    const opening = document.serverText === undefined;
    document.serverVersion++;
    document.serverText = owner.text;
    this.record(document, owner);
    if (opening) {
      return [
        notification("textDocument/didOpen", {
          textDocument: { uri, languageId: document.languageId, version: document.serverVersion, text: owner.text },
        }),
      ];
    }
    return [
      notification("textDocument/didChange", {
        textDocument: { uri, version: document.serverVersion },
        contentChanges: changes ?? [{ text: owner.text }],
      }),
    ];
  }

  private record(document: Document, owner: Owner): void {
    owner.versions.set(document.serverVersion, owner.version);
    if (owner.versions.size > KEPT_VERSIONS) {
      const oldest = owner.versions.keys().next().value as number;
      owner.versions.delete(oldest);
    }
  }
}

function notification(method: string, params: unknown): JsonRpcMessage {
  return { jsonrpc: "2.0", method, params };
}
