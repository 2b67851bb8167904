import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { COMMAND_NAMES } from "../lib/args.mjs";
import { helpText } from "../lib/help.mjs";

const CLI = join(import.meta.dirname, "../cloud-ide.mjs");

afterEach(() => vi.unstubAllEnvs());

/** The CLI as a person runs it, with no IDE to reach: nothing here may need one. (A node start each: given a minute on a loaded machine.) */
function cli(args: string[]) {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: "/nonexistent", XDG_CONFIG_HOME: "/cfg", CLOUD_IDE_URL: "http://127.0.0.1:9" },
    timeout: 20_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("the help", () => {
  it("lists every command, and each has its own usage line", () => {
    const main = helpText("main");
    for (const command of COMMAND_NAMES) {
      expect(main, command).toMatch(new RegExp(`\\n  ${command} `));
      expect(helpText(command), command).toMatch(new RegExp(`^Usage: cloud-ide ${command}( |$)`, "m"));
    }
  });

  it("names the files under XDG_CONFIG_HOME as it is when asked", () => {
    vi.stubEnv("XDG_CONFIG_HOME", "/somewhere");
    expect(helpText("login")).toContain("/somewhere/cloud-ide/config.json");
    expect(helpText("ssh")).toContain("/somewhere/cloud-ide");
  });

  it("is printed by every command's --help with status 0 and nothing else done", () => {
    vi.stubEnv("XDG_CONFIG_HOME", "/cfg");
    for (const command of COMMAND_NAMES) {
      const ran = cli([command, "--help"]);
      expect(ran.status, `${command}: ${ran.stderr}`).toBe(0);
      expect(ran.stdout, command).toBe(`${helpText(command)}\n`);
    }
    expect(cli(["--help"]).stdout).toMatch(/^cloud-ide: the IDE from a command line/);
    expect(cli(["help", "ports"]).stdout).toMatch(/^Usage: cloud-ide ports forward/);
  }, 60_000);
});

describe("the CLI's mistakes", () => {
  it("prints the main help with status 1 without a command, and 2 for an unknown one", () => {
    const bare = cli([]);
    expect(bare.status).toBe(1);
    expect(bare.stdout).toMatch(/^cloud-ide: the IDE from a command line/);
    const unknown = cli(["sshh"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('cloud-ide: no command "sshh".');
  }, 60_000);

  it("tells bad arguments before reaching for the IDE", () => {
    const ports = cli(["ports", "forward", "app", "3000:99999"]);
    expect(ports.status).toBe(1);
    expect(ports.stderr).toBe(
      'cloud-ide: "3000:99999" is not LOCAL:REMOTE (two port numbers from 1 to 65535, e.g. 3000:5173).\n',
    );
    const ssh = cli(["ssh", "app", "ls"]);
    expect(ssh.status).toBe(1);
    expect(ssh.stderr).toContain('put the command after "--"');
    const tunnel = cli(["tunnel"]);
    expect(tunnel.stderr).toBe("cloud-ide: Usage: cloud-ide tunnel WORKSPACE_ID\n");
    const login = cli(["login", "not a url"]);
    expect(login.stderr).toContain('"not a url" is not a URL');
  }, 60_000);
});
