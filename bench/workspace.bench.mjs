// Cold start: a new workspace's first status (the Worker, the Durable Object,
// container start, and `uname -a` through exec) against `docker run` of the
// sandbox image itself (the image the workspace's container runs) running the
// same command, by turns in the same run. The reference is timed to the
// command's exit; its container is removed after the timing, as ours is.
import { execFileSync, spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { alternate } from "./lib/alternate.mjs";
import { signIn } from "./lib/session.mjs";
import { median } from "./lib/stats.mjs";
import { findContainer } from "./lib/workspace-container.mjs";

export const title = "Workspace cold start";

const RUNS = 5;

export async function run({ baseUrl }) {
  const session = await signIn(baseUrl);
  let image;
  const ours = async (i) => {
    const { id } = await session.json("/api/workspaces", { method: "POST", body: { name: `bench ${i}` } });
    try {
      const start = performance.now();
      const status = await session.json(`/api/workspaces/${id}/wake`, { method: "POST" });
      const ms = performance.now() - start;
      if (status.state !== "running") throw new Error(`workspace did not start: ${JSON.stringify(status)}`);
      // The sandbox image, as workerd built and tagged it.
      image ??= execFileSync("docker", ["inspect", "--format", "{{.Config.Image}}", await findContainer(session, id)], {
        encoding: "utf8",
      }).trim();
      return ms;
    } finally {
      await session.fetch(`/api/workspaces/${id}`, { method: "DELETE" });
    }
  };
  const reference = (i) => {
    if (!image) throw new Error("the sandbox image is not known yet");
    const name = `cloud-ide-bench-cold-${process.pid}-${i}`;
    try {
      const start = performance.now();
      execFileSync("docker", ["run", "--name", name, image, "uname", "-a"], { stdio: "ignore" });
      return performance.now() - start;
    } finally {
      spawnSync("docker", ["rm", "-f", name], { stdio: "ignore" });
    }
  };
  // Ours first: it is what makes the image known.
  const [cold, dockerRun] = await alternate(RUNS, ours, reference).catch(async (error) => {
    if (image) throw error;
    throw new Error(`no workspace started, so no sandbox image to compare with: ${error.message}`);
  });
  return [
    {
      metric: "new workspace to uname -a (median)",
      ours: median(cold),
      reference: median(dockerRun),
      referenceName: "docker run SANDBOX_IMAGE uname -a (removed after)",
      unit: "ms",
      target: "< 2000 ms",
    },
  ];
}
