// Cold start: a new workspace's first status (the Worker, the Durable Object,
// container start, and `uname -a` through exec) against `docker run` of the
// sandbox image itself (the image the workspace's container runs) running the
// same command, by turns in the same run. The reference is timed to the
// command's exit; its container is removed after the timing, as ours is.
// Then the same as a person meets it in the page: the container started
// while they typed the name (POST /api/workspaces/spare), and the time from
// Create (POST /api/workspaces with the spare) to the status with `uname -a`.
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
  // Named while its container starts: the page asks for the spare when the name field gets focus.
  const typed = async (i) => {
    const spare = await session.json("/api/workspaces/spare", { method: "POST" });
    if (!spare?.id) throw new Error("spares are off (SPARE_WORKSPACE_SECONDS=0): nothing to measure");
    let id = spare.id;
    try {
      await untilRunning(session, spare.id);
      const start = performance.now();
      ({ id } = await session.json("/api/workspaces", {
        method: "POST",
        body: { name: `bench typed ${i}`, spare: spare.id },
      }));
      const status = await session.json(`/api/workspaces/${id}/wake`, { method: "POST" });
      const ms = performance.now() - start;
      if (id !== spare.id) throw new Error(`the new workspace did not take its spare (${spare.id}, made ${id})`);
      if (status.state !== "running" || !status.kernel) throw new Error(`no uname -a: ${JSON.stringify(status)}`);
      return ms;
    } finally {
      await session.fetch(`/api/workspaces/${id}`, { method: "DELETE" });
      if (id !== spare.id) await session.fetch(`/api/workspaces/${spare.id}`, { method: "DELETE" });
    }
  };
  // Ours first: it is what makes the image known.
  const [cold, dockerRun] = await alternate(RUNS, ours, reference).catch(async (error) => {
    if (image) throw error;
    throw new Error(`no workspace started, so no sandbox image to compare with: ${error.message}`);
  });
  const [warm, dockerRunAgain] = await alternate(RUNS, typed, reference);
  return [
    {
      metric: "new workspace to uname -a (median)",
      ours: median(cold),
      reference: median(dockerRun),
      referenceName: "docker run SANDBOX_IMAGE uname -a (removed after)",
      unit: "ms",
      target: "< 2000 ms",
    },
    {
      metric: "new workspace to uname -a, its container started while the name was typed (median)",
      ours: median(warm),
      reference: median(dockerRunAgain),
      referenceName: "docker run SANDBOX_IMAGE uname -a (removed after)",
      unit: "ms",
      target: "<= 1.5x reference",
    },
  ];
}

/** Waits until the spare's container runs, as it has by the time a person has typed a name. */
async function untilRunning(session, id) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await session.json(`/api/workspaces/${id}/status?wake=0`);
    if (status.state === "running") return;
    if (status.state === "failed" || Date.now() > deadline)
      throw new Error(`the spare did not start: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
