// Finds a workspace's Docker container, for references that run the bare
// command in the same container (`docker exec`).
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";

/**
 * The Docker container of workspace `id`: the one that holds a marker written
 * through the API (removed again). `workerName` (the bench's IDE) narrows the
 * search to that IDE's containers, leaving other runs' on the machine alone.
 */
export async function findContainer(session, id, workerName = "") {
  const marker = `.bench-${randomBytes(4).toString("hex")}`;
  const put = await session.fetch(`/api/workspaces/${id}/files/content?path=${marker}`, { method: "PUT", body: id });
  if (!put.ok) throw new Error(`marker write failed: ${put.status} ${await put.text()}`);
  const names = execFileSync("docker", ["ps", "--format", "{{.Names}}", "--filter", `name=workerd-${workerName}`], {
    encoding: "utf8",
  })
    .split("\n")
    .filter((n) => n && !n.endsWith("-proxy"));
  for (const name of names) {
    const out = spawnSync("docker", ["exec", name, "cat", `/workspace/${marker}`], { encoding: "utf8" });
    if (out.status === 0 && out.stdout === id) {
      spawnSync("docker", ["exec", name, "rm", "-f", `/workspace/${marker}`]);
      return name;
    }
  }
  throw new Error("the workspace's container was not found");
}
