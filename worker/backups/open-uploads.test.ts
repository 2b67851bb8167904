import { describe, expect, it } from "vitest";
import { OpenUploads, type OpenUploadsStorage } from "./open-uploads";

function memoryStorage(): OpenUploadsStorage & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return {
    data,
    get: async <T>(key: string) => structuredClone(data.get(key)) as T | undefined,
    put: async <T>(key: string, value: T) => {
      data.set(key, structuredClone(value));
    },
    delete: async (key: string) => data.delete(key),
  };
}

/** A bucket whose resumed uploads record their aborts; those in `refuse` fail. */
function abortingBucket(refuse = new Set<string>()): { bucket: R2Bucket; aborted: string[] } {
  const aborted: string[] = [];
  const bucket = {
    resumeMultipartUpload: (key: string, uploadId: string) => ({
      abort: async () => {
        if (refuse.has(uploadId)) throw new Error("R2 is unreachable");
        aborted.push(`${key}#${uploadId}`);
      },
    }),
  } as unknown as R2Bucket;
  return { bucket, aborted };
}

describe("OpenUploads", () => {
  it("forgets an upload its backup ended", async () => {
    const storage = memoryStorage();
    const uploads = new OpenUploads(storage, "test");
    await uploads.begun({ key: "workspaces/a/1", uploadId: "u1" });
    expect(storage.data.size).toBe(1);
    await uploads.ended("u1");
    expect(storage.data.size).toBe(0);
  });

  it("aborts, after a restart, the upload the previous object began and never ended", async () => {
    const storage = memoryStorage();
    await new OpenUploads(storage, "test").begun({ key: "workspaces/a/1", uploadId: "u1" });
    const restarted = new OpenUploads(storage, "test");
    const { bucket, aborted } = abortingBucket();
    expect(await restarted.abortLeft(bucket)).toBe(1);
    expect(aborted).toEqual(["workspaces/a/1#u1"]);
    expect(storage.data.size).toBe(0);
  });

  it("leaves alone an upload of its own that is still running", async () => {
    const storage = memoryStorage();
    const uploads = new OpenUploads(storage, "test");
    await uploads.begun({ key: "workspaces/a/2", uploadId: "u2" });
    const { bucket, aborted } = abortingBucket();
    expect(await uploads.abortLeft(bucket)).toBe(0);
    expect(aborted).toEqual([]);
    await uploads.ended("u2");
    expect(storage.data.size).toBe(0);
  });

  it("keeps one R2 refused to abort, for the next call", async () => {
    const storage = memoryStorage();
    const before = new OpenUploads(storage, "test");
    await before.begun({ key: "workspaces/a/1", uploadId: "u1" });
    await before.begun({ key: "workspaces/a/3", uploadId: "u3" });
    const after = new OpenUploads(storage, "test");
    const refusing = abortingBucket(new Set(["u3"]));
    expect(await after.abortLeft(refusing.bucket)).toBe(1);
    expect(refusing.aborted).toEqual(["workspaces/a/1#u1"]);
    const answering = abortingBucket();
    expect(await after.abortLeft(answering.bucket)).toBe(1);
    expect(answering.aborted).toEqual(["workspaces/a/3#u3"]);
    expect(storage.data.size).toBe(0);
  });
});
