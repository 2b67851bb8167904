import { ErrorCode } from "../../protocol/errors";
import type { ImportResult } from "../../protocol/workspace";
import { ApiError, describe } from "../http";
import { type Lifecycle, run } from "./lifecycle";

const WORKSPACE_DIR = "/workspace";

/**
 * `GET export`: /workspace as a tar.gz, streamed from `tar` in the container
 * to the client without being held in the Durable Object. The download counts
 * as an open connection, so an idle stop does not cut it off. If tar fails
 * midway the stream errors, so the client sees a broken download rather than
 * a short archive that looks complete.
 */
export async function exportArchive(lifecycle: Lifecycle, container: Container, name: string): Promise<Response> {
  await lifecycle.ensureRunning();
  const proc = await container.exec(["tar", "-czf", "-", "-C", WORKSPACE_DIR, "."], {
    cwd: "/",
    stdout: "pipe",
    stderr: "pipe",
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
        proc.kill();
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
export function importArchive(lifecycle: Lifecycle, container: Container, body: ReadableStream): Promise<ImportResult> {
  return lifecycle.exclusive(async () => {
    await lifecycle.ensureRunning();
    const existing = await run(container, ["sh", "-c", `ls -A ${WORKSPACE_DIR} | head -n 1`]);
    if (existing.trim()) {
      await body.cancel().catch(() => {});
      throw new ApiError(
        409,
        ErrorCode.WORKSPACE_NOT_EMPTY,
        "Import goes only into an empty workspace, so it never overwrites files. Create a new workspace and import there.",
      );
    }
    const proc = await container.exec(["tar", "-xzf", "-", "-C", WORKSPACE_DIR, "--no-same-owner"], {
      cwd: "/",
      stdin: body,
      stdout: "ignore",
      stderr: "pipe",
    });
    const [code, stderr] = await Promise.all([
      proc.exitCode,
      proc.stderr ? new Response(proc.stderr).text() : Promise.resolve(""),
    ]);
    if (code !== 0) {
      await run(container, ["find", WORKSPACE_DIR, "-mindepth", "1", "-delete"]).catch((error) =>
        console.error(`cleaning up a failed import: ${describe(error)}`),
      );
      throw new ApiError(
        400,
        ErrorCode.INVALID_ARCHIVE,
        `The archive could not be imported (tar exited with ${code}: ${stderr.trim().slice(0, 500)}). Upload a .tar.gz made by Export or by "tar -czf".`,
      );
    }
    const entries = (await run(container, ["sh", "-c", `ls -A ${WORKSPACE_DIR} | wc -l`])).trim();
    const saved = await lifecycle.snapshot();
    return { entries: Number(entries), saved };
  });
}
