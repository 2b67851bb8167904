import { ErrorCode } from "../../protocol/errors";
import type { ImportResult } from "../../protocol/workspace";
import { AppError, describe } from "../errors";
import { WORKSPACE_ROOT } from "../sandbox/environment";
import type { Sandbox } from "../sandbox/sandbox";
import type { Lifecycle } from "./lifecycle";

/**
 * `GET export`: /workspace as a tar.gz, streamed from `tar` in the container
 * to the client without being held in the Durable Object. The download counts
 * as an open connection, so an idle stop does not cut it off. If tar fails
 * midway the stream errors, so the client sees a broken download rather than
 * a short archive that looks complete.
 */
export async function exportArchive(lifecycle: Lifecycle, sandbox: Sandbox, name: string): Promise<Response> {
  // A GET: it reads a running workspace and never wakes one.
  await lifecycle.whenAwake();
  const proc = await sandbox.exec(["tar", "-czf", "-", "-C", WORKSPACE_ROOT, "."], {
    stdout: "pipe",
    stderr: "pipe",
    wake: false,
  });
  const stdout = proc.stdout;
  if (!stdout) throw new Error("tar has no stdout");
  const stderr = proc.stderr ? new Response(proc.stderr).text() : Promise.resolve("");
  lifecycle.activity.begin();
  let ended = false;
  const end = () => {
    if (!ended) lifecycle.activity.end();
    ended = true;
  };
  const body = stdout.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async flush(controller) {
        try {
          const code = await proc.exitCode;
          if (code !== 0) controller.error(new Error(`tar exited with ${code}: ${(await stderr).trim()}`));
        } finally {
          end();
        }
      },
      cancel() {
        // No proc.kill(): under local workerd it signals the whole container.
        // The pipe cancels tar's stdout; tar gets EPIPE at its next write and exits.
        end();
      },
    }),
  );
  return new Response(body, {
    headers: {
      "Content-Type": "application/gzip",
      "Content-Disposition": `attachment; filename="${name}.tar.gz"`,
      "Cache-Control": "no-store",
    },
  });
}

/**
 * `POST import`: the request body (a tar.gz) is streamed into `tar -xz` in
 * the container, into an empty /workspace only, then saved as a snapshot.
 * GNU tar strips leading `/` from member names and refuses members with
 * `..`; a refused or broken archive leaves /workspace empty again.
 */
export function importArchive(
  lifecycle: Lifecycle,
  sandbox: Sandbox,
  body: ReadableStream,
  replace = false,
): Promise<ImportResult> {
  return lifecycle.exclusive(async () => {
    await sandbox.wake();
    const existing = await sandbox.stdout(["sh", "-c", `ls -A ${WORKSPACE_ROOT} | head -n 1`]);
    if (existing.trim() && !replace) {
      await drain(body);
      throw new AppError(
        ErrorCode.WORKSPACE_NOT_EMPTY,
        "This workspace has files. Import with ?replace=true to replace everything in /workspace (a new workspace holds only the starter app).",
      );
    }
    const archive = await gzipOrRefuse(body);
    // Only after the upload looks like an archive: a bad upload changes nothing.
    if (replace) await sandbox.stdout(["find", WORKSPACE_ROOT, "-mindepth", "1", "-delete"]);
    const proc = await sandbox.exec(["tar", "-xzf", "-", "-C", WORKSPACE_ROOT, "--no-same-owner"], {
      stdin: archive,
      stdout: "ignore",
      stderr: "pipe",
    });
    const [code, stderr] = await Promise.all([
      proc.exitCode,
      proc.stderr ? new Response(proc.stderr).text() : Promise.resolve(""),
    ]);
    // Whatever tar left unread (it stops early on some errors).
    await drain(archive);
    if (code !== 0) {
      await sandbox
        .stdout(["find", WORKSPACE_ROOT, "-mindepth", "1", "-delete"])
        .catch((error) => console.error(`cleaning up a failed import: ${describe(error)}`));
      throw new AppError(
        ErrorCode.INVALID_ARCHIVE,
        `The archive could not be imported (tar exited with ${code}: ${stderr.trim().slice(0, 500)}). Upload a .tar.gz made by Export or by "tar -czf".`,
      );
    }
    const entries = (await sandbox.stdout(["sh", "-c", `ls -A ${WORKSPACE_ROOT} | wc -l`])).trim();
    const saved = await lifecycle.snapshot();
    return { entries: Number(entries), saved };
  });
}

/**
 * Reads a refused upload to its end, so the client's connection stays usable
 * for its next request instead of being dropped under it.
 */
async function drain(body: ReadableStream): Promise<void> {
  await body.pipeTo(new WritableStream()).catch(() => {});
}

/** Refuses (after draining) a body that does not start like gzip; else the same bytes as a stream. */
async function gzipOrRefuse(body: ReadableStream<Uint8Array>): Promise<ReadableStream<Uint8Array>> {
  const reader = body.getReader();
  const head: Uint8Array[] = [];
  let length = 0;
  while (length < 2) {
    const { done, value } = await reader.read();
    if (done) break;
    head.push(value);
    length += value.byteLength;
  }
  const first = head[0];
  const second = first && first.byteLength > 1 ? first[1] : head[1]?.[0];
  if (first?.[0] !== 0x1f || second !== 0x8b) {
    reader.releaseLock();
    await drain(body);
    throw new AppError(
      ErrorCode.INVALID_ARCHIVE,
      'The upload is not a gzip-compressed archive. Upload a .tar.gz made by Export or by "tar -czf".',
    );
  }
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of head) controller.enqueue(chunk);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    // tar may stop reading before the end (it refused a member): read the
    // rest anyway, for the same reason as drain().
    async cancel() {
      for (;;) {
        const { done } = await reader.read().catch(() => ({ done: true }));
        if (done) return;
      }
    },
  });
}
