// The images one run of the IDE made, and nothing else: several IDEs and test
// runs share this machine's Docker engine, and a snapshot another run saved is
// that run's next restore. Docker's own event stream says which container made
// each snapshot (`commit`, with the container's name) and which build tag each
// container was created from (`create`); workerd names a run's containers
// `workerd-{worker name}-...`.
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";

/**
 * Starts recording what the containers of `workerName` make. Call before the
 * run starts any container.
 * @param {string} workerName
 */
export function startImageLedger(workerName) {
  const prefix = `workerd-${workerName}-`;
  /** Snapshot images (`workerd-container-snap-{id}`) this run's containers committed. */
  const snapshots = new Set();
  /** `cloudflare-dev/...:{build}` tags this run's containers were created from. */
  const builds = new Set();
  const events = spawn(
    "docker",
    [
      "events",
      "--filter",
      "type=container",
      "--filter",
      "event=create",
      "--filter",
      "event=commit",
      "--format",
      "{{json .}}",
    ],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  events.on("error", () => {});
  createInterface({ input: events.stdout }).on("line", (line) => {
    const event = parseEvent(line);
    if (!event?.name.startsWith(prefix)) return;
    if (event.action === "commit" && event.imageRef) snapshots.add(event.imageRef);
    if (event.action === "create" && event.image?.startsWith("cloudflare-dev/")) builds.add(event.image);
  });

  return {
    snapshots,
    builds,
    /** Stops recording and removes what was recorded (call after the run's containers are gone). */
    async removeRecorded() {
      // Events of the last moments (a commit just before stop) are still on their way.
      await new Promise((resolve) => setTimeout(resolve, 300));
      events.kill();
      if (snapshots.size > 0) spawnSync("docker", ["rmi", ...snapshots], { stdio: "ignore" });
      untagBuilds(builds);
    },
  };
}

/**
 * One line of `docker events --format '{{json .}}'`.
 * @param {string} line
 * @returns {{ action: string, name: string, image?: string, imageRef?: string } | undefined}
 */
export function parseEvent(line) {
  try {
    const event = JSON.parse(line);
    const attributes = event?.Actor?.Attributes ?? {};
    if (typeof event?.Action !== "string" || typeof attributes.name !== "string") return undefined;
    return { action: event.Action, name: attributes.name, image: attributes.image, imageRef: attributes.imageRef };
  } catch {
    return undefined;
  }
}

/**
 * Drops this run's build tags, so they do not pile up run after run. Only a
 * tag whose image keeps another tag goes: untagging the last one would delete
 * the image and the build cache the next run uses.
 * @param {Set<string>} tags
 */
function untagBuilds(tags) {
  const drop = [];
  for (const tag of tags) {
    const id = imageId(tag);
    if (!id) continue;
    const others = spawnSync("docker", ["images", "--no-trunc", "--format", "{{.Repository}}:{{.Tag}} {{.ID}}"], {
      encoding: "utf8",
    })
      .stdout.split("\n")
      .filter((line) => line.endsWith(` ${id}`) && !line.startsWith(`${tag} `) && !drop.includes(line.split(" ")[0]));
    if (others.length > 0) drop.push(tag);
  }
  if (drop.length > 0) spawnSync("docker", ["rmi", ...drop], { stdio: "ignore" });
}

function imageId(reference) {
  const result = spawnSync("docker", ["image", "inspect", "--format", "{{.Id}}", reference], { encoding: "utf8" });
  return result.status === 0 ? result.stdout.trim() : undefined;
}
