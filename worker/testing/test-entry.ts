/**
 * The Worker the test harness runs (never built for production): the
 * production Worker plus test hooks. vite.config.ts picks this entry only
 * when the test dev server asks for it (CLOUD_IDE_TEST_HOOKS=1, set by
 * scripts/lib/dev-server.mjs); `vite build` and `wrangler deploy` use
 * worker/index.ts, so no hook exists in a deployed Worker (a test of the
 * production bundle checks that).
 *
 *   POST /api/workspaces/{id}/test-hooks/lifecycle  {overrides?, snapshotId?, image?, smallDisk?}
 *        shorter timings for one workspace (ms), a snapshot id to start from,
 *        or an image to start from (one that cannot start, to test failures);
 *        smallDisk "DIR:SIZE" (DIR under /workspace, SIZE such as 4m): its next
 *        containers get a tmpfs of that size there (the engine proxy of the
 *        test dev server mounts it), a full disk without filling this machine's
 *   POST /api/workspaces/{id}/test-hooks/spare/expire
 *        the caller's unclaimed spare goes now (a test's clean-up)
 *   POST /api/workspaces/{id}/test-hooks/spare/due  {inMs}
 *        the caller's unclaimed spare is due in inMs milliseconds: its real alarm discards it
 *   POST /api/workspaces/{id}/previews/{port}/shares/{shareId}/expire
 *        the share link expires now
 *   POST /api/workspaces/{id}/test-hooks/backups  {unavailable?: boolean, archiveRoute?: boolean, failPart?: number | null, partDelayMs?: number}
 *        unavailable: R2 fails every backup and save-journal operation of this workspace (until false);
 *        archiveRoute false: the archive hostname cannot be set up, so archives go by exec (until true);
 *        failPart N: R2 refuses part N of every multipart upload (until null);
 *        partDelayMs N: every part's upload takes N ms longer (0: as fast as it is), so a
 *        fault can land while a backup's archive still streams
 *   GET  /api/workspaces/{id}/test-hooks/backups/uploads
 *        {created, completed, aborted}: this workspace's multipart uploads since its object
 *        started (each one created must end completed or aborted: none left open)
 *   POST /api/workspaces/{id}/test-hooks/backups/{backupId}/corrupt  {mode: "flip" | "truncate"}
 *        overwrites the backup's object in R2: one byte changed, or its second half cut off
 *   POST /api/workspaces/{id}/test-hooks/backups/{backupId}/r2-alone  {op: "put" | "get"}
 *        times the local R2's own part of a backup or a restore, no container involved:
 *        put: as many bytes as the backup's object, uploaded in parts as a backup
 *        uploads (then deleted); get: the object read and hashed as a restore reads it.
 *        The bench's floor beside its backup and restore rows
 *   POST /api/workspaces/{id}/test-hooks/journal  {enabled?: boolean}
 *        the save journal as it stands: its index ({ops}) and its objects in R2 ({objects});
 *        enabled false: saves of this workspace are not journaled (until true), for the bench
 *   GET  /api/test-hooks/routes
 *        the workspace's route table as data ({method, path, socket, role, body}),
 *        for tests that walk every route
 *   POST /api/workspaces/{id}/test-hooks/invites/{inviteId}/expire
 *        the invite link expires now
 *   POST /api/workspaces/{id}/test-hooks/members  {user, role}
 *        gives another user a role in the workspace (role null: none), as
 *        members will (issue 24): the door's tests check each route's role with it
 *   POST /api/workspaces/{id}/agent-tokens/{tokenId}/expire  {inMs}
 *        the agent token expires in inMs milliseconds (0: now)
 *   X-Test-Client-Address: ADDRESS on any sign-in
 *        the sign-in throttle's bucket (locally every client is "loopback")
 *
 * Its Workspace answers GitHub's device sign-in itself (fake-github.ts).
 * Its Outbound entrypoint answers hosts under egress.test itself
 * (egress-test-handler.ts), so tests of the network policy and of secrets
 * need no outside service.
 */
import { Hono } from "hono";
import { ErrorCode } from "../../protocol/errors";
import { isMemberRole } from "../../protocol/members";
import type { AppEnv } from "../app-env";
import { localClients } from "../auth/client-address";
import { requireUser, sameOriginOnly } from "../auth/guards";
import { checkWorkspaceId } from "../door/forward";
import { AppError, notFound, type RpcResult, unwrap } from "../errors";
import type { JournalOp } from "../files/save-journal";
import { answerError } from "../http";
import production from "../index";
import type { LifecycleSettings } from "../lifecycle/settings";
import { previewHostLabel } from "../previews/preview-host";
import { hashing, uploadInParts } from "../r2-parts";
import { Workspace as ProductionWorkspace } from "../workspace";
import { WORKSPACE_ROUTES } from "../workspace-routes";

export { ArchiveGateway, DeviceLogin, Directory, SignInThrottle } from "../index";

import { fakeGitHub } from "./fake-github";
import { FAKE_GITHUB_CLIENT_ID } from "./test-git-hosts";

export { TestOutbound as Outbound } from "./egress-test-handler";

const OVERRIDES_KEY = "test:lifecycle-overrides";
/** Read by the test dev server's engine proxy (scripts/lib/engine-proxy.mjs, `smallDisks`). */
const SMALL_DISK_ENV = "CLOUD_IDE_TEST_SMALL_DISK";

/** The Workspace with test hooks. It keeps the production class name: wrangler.jsonc binds "Workspace". */
export class Workspace extends ProductionWorkspace {
  private testImage: string | undefined;
  private smallDisk: string | undefined;
  private backupsUnavailable = false;
  private archiveRouteOff = false;
  private failPart: number | undefined;
  private partDelayMs = 0;
  private readonly uploads = { created: 0, completed: 0, aborted: 0 };
  private journalOff = false;

  protected override backupBucket(): R2Bucket | undefined {
    const bucket = super.backupBucket();
    if (!bucket) return bucket;
    if (this.backupsUnavailable) return unreachable(bucket);
    return this.countedUploads(bucket);
  }

  /** The bucket, its multipart uploads counted (and part `failPart` of each refused). */
  private countedUploads(bucket: R2Bucket): R2Bucket {
    const uploads = this.uploads;
    const failPart = () => this.failPart;
    const partDelay = () => this.partDelayMs;
    return new Proxy(bucket, {
      get(target, property) {
        if (property !== "createMultipartUpload") {
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        }
        return async (key: string, options?: R2MultipartOptions) => {
          const upload = await target.createMultipartUpload(key, options);
          uploads.created += 1;
          return {
            key: upload.key,
            uploadId: upload.uploadId,
            uploadPart(part: number, value: Parameters<R2MultipartUpload["uploadPart"]>[1]) {
              if (part === failPart()) return Promise.reject(new Error(`R2 refused part ${part} (test hook)`));
              const delay = partDelay();
              if (delay === 0) return upload.uploadPart(part, value);
              return scheduler.wait(delay).then(() => upload.uploadPart(part, value));
            },
            async abort() {
              await upload.abort();
              uploads.aborted += 1;
            },
            async complete(parts: R2UploadedPart[]) {
              const object = await upload.complete(parts);
              uploads.completed += 1;
              return object;
            },
          } satisfies R2MultipartUpload;
        };
      },
    });
  }

  protected override routeArchives(): Promise<void> {
    if (!this.archiveRouteOff) return super.routeArchives();
    return Promise.reject(new Error(`the archive hostname is off for workspace ${this.ctx.id.name ?? ""} (test hook)`));
  }

  testBackups(
    caller: string,
    options: { unavailable?: boolean; archiveRoute?: boolean; failPart?: number | null; partDelayMs?: number },
  ): Promise<RpcResult<void>> {
    return this.call(caller, () => {
      if (options.unavailable !== undefined) this.backupsUnavailable = options.unavailable;
      if (options.archiveRoute !== undefined) this.archiveRouteOff = !options.archiveRoute;
      if (options.failPart !== undefined) this.failPart = options.failPart ?? undefined;
      if (options.partDelayMs !== undefined) this.partDelayMs = options.partDelayMs;
    });
  }

  testUploads(caller: string): Promise<RpcResult<{ created: number; completed: number; aborted: number }>> {
    return this.call(caller, () => ({ ...this.uploads }));
  }

  protected override journalBucket(): R2Bucket | undefined {
    const bucket = this.journalOff ? undefined : super.journalBucket();
    // An unreachable R2 is unreachable for the save journal too.
    return bucket && this.backupsUnavailable ? unreachable(bucket) : bucket;
  }

  /** The save journal's index and its R2 objects: a test checks nothing is left after a checkpoint. */
  testJournal(caller: string, enabled?: boolean): Promise<RpcResult<{ ops: JournalOp[]; objects: string[] }>> {
    return this.call(caller, async () => {
      if (enabled !== undefined) this.journalOff = !enabled;
      const listed = await super.backupBucket()?.list({ prefix: `journal/${this.ctx.id.toString()}/` });
      return { ops: await this.parts.journal.list(), objects: (listed?.objects ?? []).map((object) => object.key) };
    });
  }

  /** Overwrites a backup's object (the record stays): a damaged or truncated object. */
  testCorruptBackup(caller: string, backupId: string, mode: "flip" | "truncate"): Promise<RpcResult<boolean>> {
    return this.call(caller, async () => {
      const stored = await this.storedBackup(backupId);
      if (!stored) return false;
      const { bucket, key } = stored;
      const object = await bucket.get(key);
      if (!object) return false;
      const bytes = new Uint8Array(await object.arrayBuffer());
      let changed: Uint8Array;
      if (mode === "truncate") changed = bytes.slice(0, Math.floor(bytes.length / 2));
      else {
        changed = bytes.slice();
        const at = Math.floor(changed.length / 2);
        changed[at] = (changed[at] ?? 0) ^ 0xff;
      }
      await bucket.put(key, changed);
      return true;
    });
  }

  /** {@link uploadInParts} of as many bytes as the backup holds, or its object read as a restore reads it: milliseconds. */
  testR2Alone(
    caller: string,
    backupId: string,
    op: "put" | "get",
  ): Promise<RpcResult<{ ms: number; size: number } | null>> {
    return this.call(caller, async () => {
      const stored = await this.storedBackup(backupId);
      if (!stored) return null;
      const { bucket, record, key, prefix } = stored;
      const started = Date.now();
      if (op === "get") {
        const object = await bucket.get(key);
        if (!object) return null;
        const hashed = hashing(object.body);
        await hashed.stream.pipeTo(new WritableStream());
        const { size } = await hashed.result();
        return { ms: Date.now() - started, size };
      }
      // Beside the backups' objects, so deleting the workspace would take a leftover too.
      const scratch = `${prefix}r2-alone.tmp`;
      const { size } = await uploadInParts(bucket, scratch, generated(record.size), async () => {});
      const ms = Date.now() - started;
      await bucket.delete(scratch);
      return { ms, size };
    });
  }

  /** A listed backup of this workspace: the (unhooked) bucket, its record, its object's key and the backups' prefix. */
  private async storedBackup(backupId: string) {
    const bucket = super.backupBucket();
    const record = (await this.parts.backupStore.list()).find((candidate) => candidate.id === backupId);
    if (!bucket || !record) return undefined;
    const prefix = `workspaces/${this.ctx.id.toString()}/`;
    return { bucket, record, prefix, key: `${prefix}${backupId}.tar.zst` };
  }

  protected override async settings(): Promise<LifecycleSettings> {
    const overrides = parseOverrides(await this.ctx.storage.get(OVERRIDES_KEY));
    return { ...(await super.settings()), ...overrides };
  }

  protected override githubClientId(): string {
    return FAKE_GITHUB_CLIENT_ID;
  }

  protected override githubFetch(request: Request): Promise<Response> {
    return fakeGitHub(request);
  }

  protected override image(): string {
    return this.testImage ?? super.image();
  }

  protected override containerEnv(): { env?: Record<string, string> } {
    return this.smallDisk ? { env: { [SMALL_DISK_ENV]: this.smallDisk } } : {};
  }

  testConfigure(
    caller: string,
    options: { overrides?: unknown; snapshotId?: string; image?: string; smallDisk?: string },
  ): Promise<RpcResult<void>> {
    return this.call(caller, async () => {
      if (options.image) this.testImage = options.image;
      if (options.smallDisk !== undefined) {
        if (!/^\/workspace\/[\w.-]+:\d+[km]$/.test(options.smallDisk)) {
          throw new AppError(ErrorCode.BAD_REQUEST, "smallDisk must be /workspace/NAME:SIZE, SIZE such as 4m.");
        }
        this.smallDisk = options.smallDisk;
      }
      if (options.overrides !== undefined) {
        await this.ctx.storage.put(OVERRIDES_KEY, parseOverrides(options.overrides));
        await this.parts.lifecycle.rescheduleCheck();
      }
      if (options.snapshotId) await this.parts.lifecycle.adoptSnapshot(options.snapshotId);
    });
  }

  /** Gives `user` a role here (null: none). Only the owner may (the caller is checked like any RPC's). */
  testGrant(caller: string, user: string, role: unknown): Promise<RpcResult<void>> {
    return this.call(caller, async () => {
      if (user === caller) throw new AppError(ErrorCode.BAD_REQUEST, "The owner is the owner.");
      if (role !== null && !isMemberRole(role)) {
        throw new AppError(ErrorCode.BAD_REQUEST, "role must be viewer, editor or null.");
      }
      await this.parts.members.grant(user, role);
    });
  }

  /** The caller's unclaimed spare is due in `inMs`, its alarm set again: false when it is no (longer a) spare. */
  testSpareDueIn(caller: string, inMs: number): Promise<RpcResult<boolean>> {
    return this.call(caller, async () => {
      if (!Number.isFinite(inMs) || inMs < 0) throw new AppError(ErrorCode.BAD_REQUEST, "inMs must be a number >= 0.");
      if (!this.parts.spare.held) return false;
      await this.parts.spare.hold(Date.now() + inMs);
      return true;
    });
  }

  /** The caller's spare goes now: false when it is no (longer a) spare. */
  testExpireSpare(caller: string): Promise<RpcResult<boolean>> {
    return this.call(caller, () => this.parts.record.discardSpare());
  }

  /** An invite link that expired a moment ago, without waiting its minute. */
  testExpireInvite(caller: string, inviteId: string): Promise<RpcResult<boolean>> {
    return this.call(caller, () => this.parts.members.setInviteExpiry(inviteId, Date.now() - 1));
  }

  /** A share that expired a moment ago, without waiting minutes. */
  expireShare(caller: string, shareId: string): Promise<RpcResult<boolean>> {
    return this.call(caller, async () => {
      const grant = await this.parts.previews.grants.setExpiry(shareId, Date.now() - 1);
      if (!grant) return false;
      await this.parts.previews.sweep();
      return true;
    });
  }

  /** An agent token that expires in `inMs`, without waiting minutes. */
  expireAgentToken(caller: string, tokenId: string, inMs: number): Promise<RpcResult<boolean>> {
    return this.call(caller, () => this.parts.agents.tokens.setExpiry(tokenId, Date.now() + inMs));
  }
}

/** Timings from a test, each in milliseconds. */
function parseOverrides(value: unknown): Partial<LifecycleSettings> {
  const out: Partial<LifecycleSettings> = {};
  if (typeof value !== "object" || value === null) return out;
  for (const key of ["idleMs", "checkMs", "checkpointMs", "outsideWritesMs", "refreshMs"] as const) {
    const v = (value as Record<string, unknown>)[key];
    if (typeof v === "number" && Number.isFinite(v) && v > 0) out[key] = v;
  }
  return out;
}

/** `size` bytes in 1 MiB chunks of random data (local R2 stores bytes as they come; one chunk repeated is as good as any). */
function generated(size: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(1024 * 1024);
  for (let offset = 0; offset < chunk.length; offset += 65536)
    crypto.getRandomValues(chunk.subarray(offset, offset + 65536));
  let left = size;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (left <= 0) return controller.close();
      const take = Math.min(left, chunk.length);
      controller.enqueue(chunk.slice(0, take));
      left -= take;
    },
  });
}

const hooks = new Hono<AppEnv>();
hooks.use("*", sameOriginOnly, requireUser);

function testStub(c: { env: Env; req: { param(name: string): string | undefined } }) {
  const id = checkWorkspaceId(c.req.param("id") ?? "");
  return c.env.Workspace.getByName(id) as unknown as DurableObjectStub<Workspace>;
}

hooks.post("/api/workspaces/:id/test-hooks/lifecycle", async (c) => {
  const body = (await c.req.json().catch(() => ({}))) as {
    overrides?: unknown;
    snapshotId?: unknown;
    image?: unknown;
    smallDisk?: unknown;
  };
  const result = await testStub(c).testConfigure(c.get("user").id, {
    overrides: body.overrides,
    snapshotId: typeof body.snapshotId === "string" ? body.snapshotId : undefined,
    image: typeof body.image === "string" ? body.image : undefined,
    smallDisk: typeof body.smallDisk === "string" ? body.smallDisk : undefined,
  });
  unwrap(result as RpcResult<void>);
  return c.body(null, 204);
});

hooks.post("/api/workspaces/:id/test-hooks/spare/expire", async (c) => {
  const expired = unwrap((await testStub(c).testExpireSpare(c.get("user").id)) as RpcResult<boolean>);
  return c.json({ expired });
});

hooks.post("/api/workspaces/:id/test-hooks/spare/due", async (c) => {
  const { inMs } = (await c.req.json()) as { inMs: number };
  const due = unwrap((await testStub(c).testSpareDueIn(c.get("user").id, Number(inMs))) as RpcResult<boolean>);
  return c.json({ due });
});

hooks.post("/api/workspaces/:id/previews/:port/shares/:shareId/expire", async (c) => {
  const result = await testStub(c).expireShare(c.get("user").id, c.req.param("shareId"));
  if (!unwrap(result as RpcResult<boolean>)) throw notFound("No such share link.");
  return c.body(null, 204);
});

hooks.post("/api/workspaces/:id/test-hooks/backups", async (c) => {
  const body = (await c.req.json().catch(() => ({}))) as {
    unavailable?: unknown;
    archiveRoute?: unknown;
    failPart?: unknown;
    partDelayMs?: unknown;
  };
  const flag = (value: unknown) => (typeof value === "boolean" ? value : undefined);
  const part = (value: unknown) =>
    value === null ? null : typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
  unwrap(
    (await testStub(c).testBackups(c.get("user").id, {
      unavailable: flag(body.unavailable),
      archiveRoute: flag(body.archiveRoute),
      failPart: part(body.failPart),
      partDelayMs:
        typeof body.partDelayMs === "number" && Number.isInteger(body.partDelayMs) && body.partDelayMs >= 0
          ? Math.min(body.partDelayMs, 60_000)
          : undefined,
    })) as RpcResult<void>,
  );
  return c.body(null, 204);
});

hooks.get("/api/workspaces/:id/test-hooks/backups/uploads", async (c) => {
  const result = await testStub(c).testUploads(c.get("user").id);
  return c.json(unwrap(result as RpcResult<{ created: number; completed: number; aborted: number }>));
});

hooks.post("/api/workspaces/:id/test-hooks/journal", async (c) => {
  const body = (await c.req.json().catch(() => ({}))) as { enabled?: unknown };
  const enabled = typeof body.enabled === "boolean" ? body.enabled : undefined;
  return c.json(unwrap((await testStub(c).testJournal(c.get("user").id, enabled)) as RpcResult<unknown>));
});

hooks.post("/api/workspaces/:id/test-hooks/backups/:backupId/corrupt", async (c) => {
  const body = (await c.req.json().catch(() => ({}))) as { mode?: unknown };
  const mode = body.mode === "truncate" ? "truncate" : "flip";
  const result = await testStub(c).testCorruptBackup(c.get("user").id, c.req.param("backupId"), mode);
  if (!unwrap(result as RpcResult<boolean>)) throw notFound("No such backup.");
  return c.body(null, 204);
});

hooks.post("/api/workspaces/:id/test-hooks/backups/:backupId/r2-alone", async (c) => {
  const body = (await c.req.json().catch(() => ({}))) as { op?: unknown };
  if (body.op !== "put" && body.op !== "get") throw new AppError(ErrorCode.BAD_REQUEST, 'op must be "put" or "get".');
  const result = await testStub(c).testR2Alone(c.get("user").id, c.req.param("backupId"), body.op);
  const timed = unwrap(result as RpcResult<{ ms: number; size: number } | null>);
  if (!timed) throw notFound("No such backup.");
  return c.json(timed);
});

hooks.post("/api/workspaces/:id/agent-tokens/:tokenId/expire", async (c) => {
  const body = (await c.req.json().catch(() => ({}))) as { inMs?: unknown };
  const inMs = typeof body.inMs === "number" && body.inMs >= 0 ? body.inMs : 0;
  const result = await testStub(c).expireAgentToken(c.get("user").id, c.req.param("tokenId"), inMs);
  if (!unwrap(result as RpcResult<boolean>)) throw notFound("No such agent token.");
  return c.body(null, 204);
});

hooks.post("/api/workspaces/:id/test-hooks/members", async (c) => {
  const body = (await c.req.json().catch(() => ({}))) as { user?: unknown; role?: unknown };
  if (typeof body.user !== "string" || body.user === "")
    throw new AppError(ErrorCode.BAD_REQUEST, "user must be a user id.");
  unwrap((await testStub(c).testGrant(c.get("user").id, body.user, body.role ?? null)) as RpcResult<void>);
  return c.body(null, 204);
});

hooks.post("/api/workspaces/:id/test-hooks/invites/:inviteId/expire", async (c) => {
  const result = await testStub(c).testExpireInvite(c.get("user").id, c.req.param("inviteId"));
  if (!unwrap(result as RpcResult<boolean>)) throw notFound("No such invite.");
  return c.body(null, 204);
});

hooks.get("/api/test-hooks/routes", (c) =>
  c.json(
    WORKSPACE_ROUTES.map((route) => ({
      method: route.method,
      path: route.path,
      socket: route.socket === true,
      role: route.role,
      body: route.input.body ? ("json" in route.input.body ? "json" : "stream") : null,
    })),
  ),
);

hooks.onError((error, c) => answerError(error, c.req.raw));

const HOOK_PATH =
  /^\/api\/workspaces\/[^/]+\/(test-hooks\/(lifecycle|members|journal|spare\/(expire|due))|test-hooks\/invites\/[^/]+\/expire|test-hooks\/backups(\/[^/]+\/(corrupt|r2-alone))?|previews\/\d+\/shares\/[^/]+\/expire|agent-tokens\/[^/]+\/expire)$/;

/** Tests stand for several clients of the sign-in throttle with this header (locally everyone is "loopback"). */
export const TEST_CLIENT_HEADER = "X-Test-Client-Address";
localClients.of = (request) => request.headers.get(TEST_CLIENT_HEADER) ?? "loopback";

export default {
  fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    const hook =
      (request.method === "POST" && HOOK_PATH.test(pathname)) ||
      (request.method === "GET" &&
        (pathname === "/api/test-hooks/routes" ||
          /^\/api\/workspaces\/[^/]+\/test-hooks\/backups\/uploads$/.test(pathname)));
    if (hook && previewHostLabel(request, env) === undefined) return hooks.fetch(request, env, ctx);
    return production.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;

/** `bucket` as an unreachable R2 answers: every call fails. */
function unreachable(bucket: R2Bucket): R2Bucket {
  return new Proxy(bucket, {
    get: () => () => Promise.reject(new Error("R2 is unreachable (test hook)")),
  });
}
