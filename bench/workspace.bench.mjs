// Cold start: a new workspace's first status (the Worker, the Durable Object,
// container start, and `uname -a` through exec) against `docker run` of the
// same base image running the same command, in the same run.
import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { signIn } from "./lib/session.mjs";

export const title = "Workspace cold start";

const RUNS = 5;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export async function run({ baseUrl, env }) {
  const session = await signIn(baseUrl);
  const ours = [];
  for (let i = 0; i < RUNS; i++) {
    const { id } = await session.json("/api/workspaces", { method: "POST", body: { name: `bench ${i}` } });
    const start = performance.now();
    const status = await session.json(`/api/workspaces/${id}/wake`, { method: "POST" });
    ours.push(performance.now() - start);
    if (status.state !== "running") throw new Error(`workspace did not start: ${JSON.stringify(status)}`);
    await session.fetch(`/api/workspaces/${id}`, { method: "DELETE" });
  }
  const image = env.CLOUD_IDE_BASE_IMAGE ?? "node:24-trixie-slim";
  const reference = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    execFileSync("docker", ["run", "--rm", image, "uname", "-a"], { stdio: "ignore" });
    reference.push(performance.now() - start);
  }
  return [
    {
      metric: "new workspace to uname -a (median)",
      ours: median(ours),
      reference: median(reference),
      referenceName: "docker run --rm",
      unit: "ms",
      target: "< 2000 ms",
    },
  ];
}
