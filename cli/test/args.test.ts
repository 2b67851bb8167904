import { describe, expect, it } from "vitest";
import {
  COMMAND_NAMES,
  parseCommandLine,
  parseLoginArgs,
  parsePortSpec,
  parsePortsArgs,
  parseSshArgs,
  parseTunnelArgs,
} from "../lib/args.mjs";
import { CliError } from "../lib/config.mjs";

describe("the command line", () => {
  it("is the main help, with status 1, when no command is given", () => {
    expect(parseCommandLine([])).toEqual({ kind: "help", topic: "main", status: 1 });
  });

  it("is the main help, or a command's, when asked for", () => {
    for (const ask of ["--help", "-h", "help"]) {
      expect(parseCommandLine([ask])).toEqual({ kind: "help", topic: "main", status: 0 });
      expect(parseCommandLine([ask, "ssh"])).toEqual({ kind: "help", topic: "ssh", status: 0 });
      expect(parseCommandLine([ask, "no-such-command"])).toEqual({ kind: "help", topic: "main", status: 0 });
    }
  });

  it("is every command's own help with --help or -h anywhere before --", () => {
    for (const command of COMMAND_NAMES) {
      expect(parseCommandLine([command, "--help"]), command).toEqual({ kind: "help", topic: command, status: 0 });
      expect(parseCommandLine([command, "x", "-h"]), command).toEqual({ kind: "help", topic: command, status: 0 });
    }
  });

  it("passes --help after -- on to the remote command", () => {
    expect(parseCommandLine(["ssh", "app", "--", "ls", "--help"])).toEqual({
      kind: "run",
      command: "ssh",
      args: ["app", "--", "ls", "--help"],
    });
  });

  it("names an unknown command", () => {
    expect(parseCommandLine(["sshh", "app"])).toEqual({ kind: "unknown", command: "sshh" });
  });

  it("gives a known command its arguments", () => {
    expect(parseCommandLine(["ssh-config", "--write"])).toEqual({
      kind: "run",
      command: "ssh-config",
      args: ["--write"],
    });
  });
});

describe("ssh WORKSPACE [-- COMMAND...]", () => {
  it("is a shell without a command, and the words after -- as the command", () => {
    expect(parseSshArgs(["app"])).toEqual({ target: "app", command: [] });
    expect(parseSshArgs(["app", "--", "npm", "test"])).toEqual({ target: "app", command: ["npm", "test"] });
    expect(parseSshArgs(["app", "--"])).toEqual({ target: "app", command: [] });
  });

  it("asks for a workspace, and for -- before a command", () => {
    expect(() => parseSshArgs([])).toThrowError(/Name a workspace/);
    expect(() => parseSshArgs(["--", "ls"])).toThrowError(/Name a workspace/);
    expect(() => parseSshArgs(["app", "ls", "-la"])).toThrowError(/cloud-ide ssh app -- ls -la/);
  });
});

describe("ports forward WORKSPACE LOCAL:REMOTE", () => {
  it("reads two port numbers", () => {
    expect(parsePortsArgs(["forward", "app", "3000:5173"])).toEqual({ target: "app", local: 3000, remote: 5173 });
    expect(parsePortSpec("1:65535")).toEqual({ local: 1, remote: 65535 });
  });

  it("refuses what is not two ports from 1 to 65535, saying what it wants", () => {
    for (const spec of [
      "3000",
      "3000:",
      ":80",
      "a:b",
      "1:2:3",
      " 1:2",
      "0:80",
      "80:0",
      "65536:80",
      "80:99999",
      "-1:80",
    ]) {
      expect(() => parsePortSpec(spec), spec).toThrowError(CliError);
      expect(() => parsePortSpec(spec), spec).toThrowError(/from 1 to 65535, e\.g\. 3000:5173/);
    }
  });

  it("refuses another subcommand, a missing part or a word too many", () => {
    for (const args of [
      [],
      ["list"],
      ["forward"],
      ["forward", "app"],
      ["list", "app", "1:2"],
      ["forward", "app", "1:2", "x"],
    ]) {
      expect(() => parsePortsArgs(args), args.join(" ")).toThrowError(/Usage: cloud-ide ports forward/);
    }
  });
});

describe("tunnel WORKSPACE_ID", () => {
  it("takes a workspace id", () => {
    expect(parseTunnelArgs(["abc123"])).toBe("abc123");
  });

  it("refuses no id, two, and what is not an id (it goes into a URL)", () => {
    expect(() => parseTunnelArgs([])).toThrowError(/Usage: cloud-ide tunnel/);
    expect(() => parseTunnelArgs(["a", "b"])).toThrowError(/Usage: cloud-ide tunnel/);
    for (const id of ["My App", "../x", "ABC", "a".repeat(64)]) {
      expect(() => parseTunnelArgs([id]), id).toThrowError(/not a workspace id/);
    }
  });
});

describe("login URL", () => {
  it("is the IDE's origin, from the argument or else CLOUD_IDE_URL", () => {
    expect(parseLoginArgs(["https://ide.example.com/workspaces/x?y=1"], undefined)).toBe("https://ide.example.com");
    expect(parseLoginArgs([], "http://localhost:5173/")).toBe("http://localhost:5173");
    expect(parseLoginArgs(["https://a.example"], "https://b.example")).toBe("https://a.example");
  });

  it("refuses no URL, what is not one, and other schemes", () => {
    expect(() => parseLoginArgs([], undefined)).toThrowError(/Usage: cloud-ide login URL/);
    expect(() => parseLoginArgs(["ide.example.com"], undefined)).toThrowError(/is not a URL/);
    expect(() => parseLoginArgs(["ftp://ide.example.com"], undefined)).toThrowError(/not an http\(s\) address/);
  });
});
