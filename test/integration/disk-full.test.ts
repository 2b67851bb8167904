/**
 * A full disk (issue 45's fault matrix): saves and uploads answer 507
 * NO_SPACE with a message a person can act on, the file on disk keeps its
 * old content and nothing half-written is left beside it; once space is
 * freed the same save works. The full disk is a 4 MiB tmpfs the test dev
 * server's engine proxy mounts in this workspace's container when the test
 * asks for it (never this machine's disk).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BackupList, BackupRecord } from "../../protocol/backups";
import { filesUrl, putFile, sha256 } from "../support/files";
import { post, removeWhatWeMade, sh, testHooks, wake } from "../support/lifecycle";
import { createWorkspace, ownerApi } from "../support/session";

const DIR = "/workspace/small";
const pattern = (size: number) => new Uint8Array(Buffer.from(Array.from({ length: size }, (_, i) => (i * 7919) % 251)));

describe("a full disk", () => {
  let id: string;
  let container: string;

  beforeAll(async () => {
    id = await createWorkspace("disk full", "empty");
    await testHooks(id, { smallDisk: `${DIR}:4m` });
    container = (await wake(id)).container;
    expect(sh(container, `df --output=fstype,size -k ${DIR} | tail -1`)).toMatch(/^tmpfs\s+4096$/);
    expect((await putFile(id, "small/notes.txt", "the old content\n")).status).toBe(200);
    // 3 MiB of the 4 taken: a 2 MiB save cannot fit.
    sh(container, `dd if=/dev/zero of=${DIR}/filler bs=1M count=3 status=none`);
  });

  afterAll(() => removeWhatWeMade());

  const content = async (path: string) => {
    const response = await ownerApi(filesUrl(id, "/content", { path }));
    return { status: response.status, hash: sha256(new Uint8Array(await response.arrayBuffer())) };
  };
  const leftovers = () =>
    sh(container, `ls -A ${DIR}`)
      .split("\n")
      .filter((name) => name && name !== "filler");

  it("answers a save 507 NO_SPACE, and the file keeps its old content", async () => {
    const response = await putFile(id, "small/notes.txt", pattern(2 << 20));
    expect(response.status).toBe(507);
    const body = (await response.json()) as { code: string; message: string };
    expect(body.code).toBe("NO_SPACE");
    expect(body.message).toMatch(/disk is full.*free some space/i);
    expect(await content("small/notes.txt")).toEqual({ status: 200, hash: sha256("the old content\n") });
    expect(leftovers()).toEqual(["notes.txt"]);
  });

  it("answers an upload 507 NO_SPACE, and places nothing", async () => {
    const upload = filesUrl(id, "/upload", { path: "small/big.bin", upload: "diskfull0001", offset: "0", final: "1" });
    const response = await ownerApi(upload, { method: "PUT", body: pattern(2 << 20) });
    expect(response.status).toBe(507);
    expect(((await response.json()) as { code: string }).code).toBe("NO_SPACE");
    expect((await content("small/big.bin")).status).toBe(404);
    // Abandoning it removes what the refused chunk left.
    const abandoned = await ownerApi(filesUrl(id, "/upload", { path: "small/big.bin", upload: "diskfull0001" }), {
      method: "DELETE",
    });
    expect(abandoned.status).toBeLessThan(300);
    expect(leftovers()).toEqual(["notes.txt"]);
  });

  it("backs up while the disk is full: a backup writes nothing in the container, and keeps the files whole", async () => {
    const before = sh(container, `sha256sum ${DIR}/notes.txt ${DIR}/filler`);
    const made = await post<BackupRecord>(`/api/workspaces/${id}/backups`);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const listed = (await (await ownerApi(`/api/workspaces/${id}/backups`)).json()) as BackupList;
    expect(listed.backups.map((backup) => backup.id)).toEqual([made.body.id]);
    // Nothing was written beside the files, and they are as they were.
    expect(leftovers()).toEqual(["notes.txt"]);
    expect(sh(container, `sha256sum ${DIR}/notes.txt ${DIR}/filler`)).toBe(before);
  });

  it("saves again once space is freed", async () => {
    sh(container, `rm ${DIR}/filler`);
    const bytes = pattern(2 << 20);
    expect((await putFile(id, "small/notes.txt", bytes)).status).toBe(200);
    expect(await content("small/notes.txt")).toEqual({ status: 200, hash: sha256(bytes) });
  });
});
