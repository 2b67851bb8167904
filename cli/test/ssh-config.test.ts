import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BEGIN_MARK, configName, END_MARK, hostEntries, mergeSshConfig } from "../lib/ssh-config.mjs";

const how = {
  key: "/home/me/.config/cloud-ide/id_ed25519",
  knownHosts: "/home/me/.config/cloud-ide/known_hosts",
  proxyCommand: (id: string) => `/usr/bin/node /opt/cli/cloud-ide.mjs tunnel ${id}`,
};

describe("a workspace's host name", () => {
  it("is its name in lowercase letters, digits and dashes", () => {
    expect(configName("My App")).toBe("my-app");
    expect(configName("  web / API (v2)!! ")).toBe("web-api-v2");
    expect(configName("café-au-lait")).toBe("caf-au-lait");
    expect(configName("a -- b")).toBe("a-b");
    expect(configName("???")).toBe("workspace");
  });
});

describe("the Host entries", () => {
  it("send each workspace through the tunnel with the CLI's key and known_hosts", () => {
    const { text, hosts } = hostEntries([{ id: "abc123", name: "My App" }], how);
    expect(hosts).toEqual(["cloud-ide-my-app"]);
    expect(text).toBe(`Host cloud-ide-my-app
  HostName cloud-ide-abc123
  HostKeyAlias cloud-ide-abc123
  User root
  IdentityFile /home/me/.config/cloud-ide/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile /home/me/.config/cloud-ide/known_hosts
  ProxyCommand /usr/bin/node /opt/cli/cloud-ide.mjs tunnel abc123

`);
  });

  it("name a workspace by its id when another took its name, and leave out those one cannot ssh into", () => {
    const { text, hosts } = hostEntries(
      [
        { id: "aaa", name: "app" },
        { id: "bbb", name: "App!" },
        { id: "ccc", name: "shared", shared: { role: "editor" } },
        { id: "ddd", name: "watched", shared: { role: "viewer" } },
        { id: "Bad Id;touch x", name: "odd" },
      ],
      how,
    );
    expect(hosts).toEqual(["cloud-ide-app", "cloud-ide-bbb", "cloud-ide-shared"]);
    expect(text).not.toContain("ddd");
    expect(text).not.toContain("touch");
  });

  it("quote paths with blanks", () => {
    const { text } = hostEntries([{ id: "abc", name: "a" }], { ...how, key: "/home/my name/k", knownHosts: "/h/k h" });
    expect(text).toContain('  IdentityFile "/home/my name/k"\n');
    expect(text).toContain('  UserKnownHostsFile "/h/k h"\n');
  });

  it("are what OpenSSH reads (ssh -G on the written file, no connection)", () => {
    const dir = mkdtempSync(join(tmpdir(), "cloud-ide-ssh-config-"));
    try {
      const file = join(dir, "config");
      const { text } = hostEntries([{ id: "abc123", name: "My App" }], { ...how, key: join(dir, "my key") });
      writeFileSync(file, mergeSshConfig("Host other\n  User someone\n", text));
      const resolved = spawnSync("ssh", ["-G", "-F", file, "cloud-ide-my-app"], { encoding: "utf8" });
      expect(resolved.status, resolved.stderr).toBe(0);
      const lines = resolved.stdout.split("\n");
      expect(lines).toContain("hostname cloud-ide-abc123");
      expect(lines).toContain("user root");
      expect(lines).toContain(`identityfile ${dir}/my key`);
      expect(lines).toContain("proxycommand /usr/bin/node /opt/cli/cloud-ide.mjs tunnel abc123");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("~/.ssh/config written", () => {
  const entries = "Host cloud-ide-a\n  HostName cloud-ide-a\n\n";
  const block = `${BEGIN_MARK}\n${entries}${END_MARK}\n`;

  it("is the block alone in a new file", () => {
    expect(mergeSshConfig("", entries)).toBe(block);
  });

  it("keeps what was there and adds the block after it, on a line of its own", () => {
    expect(mergeSshConfig("Host x\n  User y\n", entries)).toBe(`Host x\n  User y\n${block}`);
    expect(mergeSshConfig("Host x\n  User y", entries)).toBe(`Host x\n  User y\n${block}`);
  });

  it("replaces the block written before, and only it", () => {
    const before = `Host x\n  User y\n${BEGIN_MARK}\nHost cloud-ide-old\n  HostName old\n${END_MARK}\nHost z\n  User w\n`;
    const after = mergeSshConfig(before, entries);
    expect(after).toBe(`Host x\n  User y\n${block}Host z\n  User w\n`);
    expect(mergeSshConfig(after, entries)).toBe(after);
  });

  it("writes entries as they are, even with $& or $1 in them", () => {
    const odd = "Host cloud-ide-a\n  IdentityFile /k/$&$1\n\n";
    expect(mergeSshConfig(`${BEGIN_MARK}\n${END_MARK}\n`, odd)).toBe(`${BEGIN_MARK}\n${odd}${END_MARK}\n`);
  });
});
