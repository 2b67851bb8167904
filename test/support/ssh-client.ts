/**
 * The real OpenSSH client (and scp, rsync) through `cloud-ide tunnel` as
 * ProxyCommand, run by the tests as a person would, each in a HOME of its
 * own (the CLI's key, config and known_hosts live there).
 */
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import { sshOptions } from "../../cli/lib/ssh.mjs";

export const CLI = join(import.meta.dirname, "../../cli/cloud-ide.mjs");

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** A person at a command line: a HOME of their own, the IDE's URL and a token. */
export class CommandLine {
  readonly home = mkdtempSync(join(tmpdir(), "cloud-ide-cli-"));

  constructor(public token: string) {}

  get env(): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      HOME: this.home,
      XDG_CONFIG_HOME: join(this.home, ".config"),
      CLOUD_IDE_URL: inject("baseUrl"),
      CLOUD_IDE_TOKEN: this.token,
    };
  }

  /** The CLI's key (made by `cloud-ide ssh` on first use). */
  get key(): string {
    return join(this.home, ".config/cloud-ide/id_ed25519");
  }

  get knownHosts(): string {
    return join(this.home, ".config/cloud-ide/known_hosts");
  }

  /**
   * ssh's options for workspace `id` with `key`: the CLI's own (the tunnel as ProxyCommand, its
   * known_hosts in this HOME), no ~/.ssh/config, batch mode.
   */
  sshOptions(id: string, key = this.key): string[] {
    return [
      "-F",
      "/dev/null",
      ...sshOptions(id, key, { dir: join(this.home, ".config/cloud-ide") }),
      "-o",
      "BatchMode=yes",
    ];
  }

  /** Runs a program with this person's environment. */
  run(command: string, args: string[], { timeoutMs = 120_000, input }: { timeoutMs?: number; input?: string } = {}) {
    return new Promise<Outcome>((resolve) => {
      const child = execFile(
        command,
        args,
        { env: this.env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
      if (input !== undefined) child.stdin?.end(input);
      else child.stdin?.end();
    });
  }

  cli(args: string[], options?: { timeoutMs?: number; input?: string }) {
    return this.run(process.execPath, [CLI, ...args], options);
  }

  ssh(id: string, command: string, options?: { timeoutMs?: number; input?: string; key?: string }) {
    return this.run("ssh", [...this.sshOptions(id, options?.key), `cloud-ide-${id}`, command], options);
  }

  /** A long-running ssh (a forward, a session held open): killed by the returned function. */
  spawnSsh(id: string, args: string[]) {
    const child = spawn("ssh", [...this.sshOptions(id), ...args], { env: this.env, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? 255)));
    return { child, exited, stderr: () => stderr, kill: () => child.kill("SIGTERM") };
  }

  remove(): void {
    rmSync(this.home, { recursive: true, force: true });
  }
}
