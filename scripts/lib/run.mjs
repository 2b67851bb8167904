// Small process and logging helpers for the set-up scripts. Node built-ins only:
// these run before `npm install` on whatever Node the machine has.
import { spawn, spawnSync } from "node:child_process";

export class SetupError extends Error {
  /** @param {string} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = "SetupError";
    this.code = code;
  }
}

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;

export function step(message) {
  console.log(`\x1b[36m▸\x1b[0m ${message} \x1b[2m(${elapsed()})\x1b[0m`);
}

export function detail(message) {
  console.log(`  \x1b[2m${message}\x1b[0m`);
}

/** Runs a command quietly; returns { status, stdout, stderr }. Never throws. */
export function probe(command, args, options = {}) {
  const result = spawnSync(command, args, {
    encoding: "utf8",
    timeout: options.timeoutMs ?? 30_000,
    env: options.env ?? process.env,
    input: options.input,
    cwd: options.cwd,
  });
  return {
    ok: result.status === 0,
    status: result.status,
    stdout: result.stdout ?? "",
    stderr: result.stderr ?? (result.error ? String(result.error.message) : ""),
  };
}

/**
 * Runs a long command, showing its output indented (so long steps show
 * progress). Rejects with a SetupError carrying the tail of the output.
 */
export function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: [options.input ? "pipe" : "ignore", "pipe", "pipe"],
      env: options.env ?? process.env,
      cwd: options.cwd,
    });
    const tail = [];
    const show = options.show ?? true;
    const onData = (chunk) => {
      for (const line of chunk.toString().split(/\r?\n/)) {
        if (!line.trim()) continue;
        tail.push(line);
        if (tail.length > 30) tail.shift();
        if (show) detail(line.length > 160 ? `${line.slice(0, 157)}...` : line);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    if (options.input) {
      options.input.pipe(child.stdin);
    }
    child.on("error", (error) => reject(new SetupError("SPAWN_FAILED", `${command}: ${error.message}`)));
    child.on("close", (code) => {
      if (code === 0) resolve();
      else
        reject(
          new SetupError("COMMAND_FAILED", `\`${command} ${args.join(" ")}\` exited with ${code}:\n${tail.join("\n")}`),
        );
    });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
