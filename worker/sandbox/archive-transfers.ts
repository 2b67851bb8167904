/**
 * One-time HTTP transfers of an archive between the container and this
 * Durable Object. The container's `curl` PUTs a backup to (or GETs a restore
 * from) `http://ARCHIVE_HOST/{token}`; the hostname is intercepted to the
 * ArchiveGateway entrypoint, which hands the request body to this object (or
 * the object's stream to the response) through the Workspace's RPC methods.
 * A request body arrives a MiB at a time as a plain stream, where an exec's
 * stdout through workerd is several times slower for the same bytes (bench/README.md).
 *
 * Each token is random, names one transfer and is taken once: only that
 * request of this container (the only one whose requests reach this gateway)
 * gets or gives the bytes; no R2 credential enters the container.
 */

/** The name the container sends archives to; never resolved outside (the intercept answers it). */
export const ARCHIVE_HOST = "archive.cloud-ide.internal";

/** What the gateway answers the container's PUT once the body was read to its end (or was refused). */
export interface UploadOutcome {
  ok: boolean;
  message?: string;
}

interface PendingUpload {
  kind: "upload";
  arrived: (body: ReadableStream<Uint8Array>) => void;
  answer: Promise<UploadOutcome>;
}

interface PendingDownload {
  kind: "download";
  body: ReadableStream<Uint8Array>;
  taken: () => void;
}

export interface UploadTransfer {
  url: string;
  /** Settles with the request's body when the container's PUT arrives. */
  body: Promise<ReadableStream<Uint8Array>>;
  /** The PUT's answer (call once the body ended, or failed): curl then ends. */
  answer(outcome: UploadOutcome): void;
  /** Forgets the token (the exec ended); a request that comes later is refused. */
  close(): void;
}

export interface DownloadTransfer {
  url: string;
  /** Settles when the container's GET took the stream. */
  taken: Promise<void>;
  /** Whether the GET took it (else the stream is still unread). */
  readonly wasTaken: boolean;
  close(): void;
}

export class ArchiveTransfers {
  private readonly pending = new Map<string, PendingUpload | PendingDownload>();

  /** A transfer the container PUTs to. */
  expectUpload(): UploadTransfer {
    const token = newToken();
    let arrived: (body: ReadableStream<Uint8Array>) => void = () => {};
    const body = new Promise<ReadableStream<Uint8Array>>((resolve) => {
      arrived = resolve;
    });
    let answer: (outcome: UploadOutcome) => void = () => {};
    const answered = new Promise<UploadOutcome>((resolve) => {
      answer = resolve;
    });
    this.pending.set(token, { kind: "upload", arrived, answer: answered });
    return {
      url: `http://${ARCHIVE_HOST}/${token}`,
      body,
      answer,
      close: () => {
        this.pending.delete(token);
        answer({ ok: false, message: "the transfer ended" });
      },
    };
  }

  /** A transfer the container GETs `body` from. */
  offerDownload(body: ReadableStream<Uint8Array>): DownloadTransfer {
    const token = newToken();
    let taken: () => void = () => {};
    let wasTaken = false;
    const takenPromise = new Promise<void>((resolve) => {
      taken = () => {
        wasTaken = true;
        resolve();
      };
    });
    this.pending.set(token, { kind: "download", body, taken });
    return {
      url: `http://${ARCHIVE_HOST}/${token}`,
      taken: takenPromise,
      get wasTaken() {
        return wasTaken;
      },
      close: () => void this.pending.delete(token),
    };
  }

  /** The gateway's PUT: hands `body` over and waits for the answer; an unknown or used token is refused. */
  async receive(token: string, body: ReadableStream<Uint8Array>): Promise<UploadOutcome> {
    const pending = this.pending.get(token);
    if (pending?.kind !== "upload") {
      await body.cancel().catch(() => {});
      return { ok: false, message: "no such transfer" };
    }
    this.pending.delete(token);
    pending.arrived(body);
    return pending.answer;
  }

  /** The gateway's GET: the stream, once; undefined for an unknown or used token. */
  send(token: string): ReadableStream<Uint8Array> | undefined {
    const pending = this.pending.get(token);
    if (pending?.kind !== "download") return undefined;
    this.pending.delete(token);
    pending.taken();
    return pending.body;
  }
}

/** 32 random hex digits: 128 bits. */
function newToken(): string {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
