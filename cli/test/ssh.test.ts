import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { configPath, hostAlias, proxyCommand, shellQuote, sshOptions } from "../lib/ssh.mjs";

afterEach(() => vi.unstubAllEnvs());

/** The words sh makes of `command` after ssh's own `%%` -> `%` (what ssh runs as the ProxyCommand). */
function wordsOf(command: string): string[] {
  const run = spawnSync("sh", ["-c", `set -- ${command.replace(/%%/g, "%")}; printf '%s\\0' "$@"`], {
    encoding: "utf8",
  });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.split("\0").slice(0, -1);
}

describe("the tunnel as ssh's ProxyCommand", () => {
  it("is node and the CLI by absolute path, then tunnel ID", () => {
    expect(proxyCommand("abc123", { node: "/usr/bin/node", script: "/opt/cli/cloud-ide.mjs" })).toBe(
      "/usr/bin/node /opt/cli/cloud-ide.mjs tunnel abc123",
    );
    expect(proxyCommand("abc123")).toContain(process.execPath);
    expect(proxyCommand("abc123")).toMatch(/\/cli\/cloud-ide\.mjs tunnel abc123$/);
  });

  it("reaches sh as the same words whatever the paths hold: blanks, quotes, $, %", () => {
    for (const node of [
      "/opt/my node/bin/node",
      "/home/o'brien/node",
      "/x/$HOME/`id`/node",
      "/100%/node",
      '/a "b"/node',
    ]) {
      const script = `${node.replace("node", "cli")}/cloud-ide.mjs`;
      expect(wordsOf(proxyCommand("abc123", { node, script })), node).toEqual([node, script, "tunnel", "abc123"]);
    }
  });

  it("doubles % so that ssh does not read it as a token", () => {
    expect(proxyCommand("abc", { node: "/100%h/node", script: "/s.mjs" })).toBe("'/100%%h/node' /s.mjs tunnel abc");
  });

  it("leaves plain words unquoted and quotes the rest", () => {
    expect(shellQuote("/usr/bin/node")).toBe("/usr/bin/node");
    expect(shellQuote("a b")).toBe("'a b'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote("")).toBe("''");
  });
});

describe("a path in ssh's options", () => {
  it("is itself, in double quotes when it has a blank, with % doubled", () => {
    expect(configPath("/home/me/.config/cloud-ide/known_hosts")).toBe("/home/me/.config/cloud-ide/known_hosts");
    expect(configPath("/home/my name/known_hosts")).toBe('"/home/my name/known_hosts"');
    expect(configPath("/home/100%/known_hosts")).toBe("/home/100%%/known_hosts");
  });

  it("cannot hold a double quote, and says so", () => {
    expect(() => configPath('/home/"me"/known_hosts')).toThrowError(/double quote/);
  });
});

describe("ssh's options for a workspace", () => {
  it("name the key, the tunnel, the host key alias and the CLI's own known_hosts, and accept a new host key", () => {
    const options = sshOptions("abc123", "/k/id_ed25519", { dir: "/cfg", node: "/n", script: "/s" });
    expect(options).toEqual([
      "-o",
      "IdentityFile=/k/id_ed25519",
      "-o",
      "IdentitiesOnly=yes",
      "-o",
      "ProxyCommand=/n /s tunnel abc123",
      "-o",
      "HostKeyAlias=cloud-ide-abc123",
      "-o",
      "UserKnownHostsFile=/cfg/known_hosts",
      "-o",
      "StrictHostKeyChecking=accept-new",
      "-o",
      "User=root",
    ]);
    expect(hostAlias("abc123")).toBe("cloud-ide-abc123");
  });

  it("find known_hosts under XDG_CONFIG_HOME as it is when they are made", () => {
    vi.stubEnv("XDG_CONFIG_HOME", "/first");
    expect(sshOptions("a", "/k")).toContain("UserKnownHostsFile=/first/cloud-ide/known_hosts");
    vi.stubEnv("XDG_CONFIG_HOME", "/second place");
    expect(sshOptions("a", "/k")).toContain('UserKnownHostsFile="/second place/cloud-ide/known_hosts"');
  });

  it("are read by OpenSSH as meant, paths with blanks and % included", () => {
    const dir = "/tmp/a dir/with 100% odd";
    const options = sshOptions("abc123", join(dir, "id_ed25519"), { dir, node: "/opt/my node", script: "/s.mjs" });
    const resolved = spawnSync("ssh", ["-G", "-F", "/dev/null", ...options, hostAlias("abc123")], { encoding: "utf8" });
    expect(resolved.status, resolved.stderr).toBe(0);
    const lines = resolved.stdout.split("\n");
    expect(lines).toContain(`userknownhostsfile ${dir}/known_hosts`);
    expect(lines).toContain("hostkeyalias cloud-ide-abc123");
    expect(lines).toContain("user root");
    // What ssh does with them (-G leaves IdentityFile and ProxyCommand as written): the proxy fails at once here.
    const used = spawnSync(
      "ssh",
      ["-v", "-F", "/dev/null", ...options, "-o", "BatchMode=yes", hostAlias("abc123"), "true"],
      { encoding: "utf8", timeout: 20_000 },
    );
    const log = used.stderr.split(/\r?\n/);
    expect(log).toContain("debug1: Executing proxy command: exec '/opt/my node' /s.mjs tunnel abc123");
    expect(log).toContain(`debug1: identity file ${dir}/id_ed25519 type -1`);
  });
});
