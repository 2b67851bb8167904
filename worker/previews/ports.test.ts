import { describe, expect, it } from "vitest";
import { parseListeningPorts } from "./ports";

const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:1435 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1002 1 0000000000000000 100 0 0 10 0
   2: 00000000:9869 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1003 1 0000000000000000 100 0 0 10 0
   3: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1004 1 0000000000000000 100 0 0 10 0
   4: 0100007F:1435 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000     0        0 1005 1 0000000000000000 100 0 0 10 0
  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1006 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000000000000:0BB8 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1007 1 0000000000000000 100 0 0 10 0`;

const FDS = `/proc/42/fd socket:[1001]
/proc/43/fd socket:[1002]
/proc/43/fd socket:[1006]
/proc/44/fd socket:[1007]
/proc/44/fd socket:[1004]`;

const PS = `    1 sleep infinity
   42 node /workspace/node_modules/.bin/vite
   43 python3 -m http.server --bind 127.0.0.1 8080
   44 node server.js`;

describe("parseListeningPorts", () => {
  it("lists the container's own listening ports with their processes", () => {
    const ports = parseListeningPorts(`${TCP}\n@fds\n${FDS}\n@ps\n${PS}\n`);
    expect(ports).toEqual([
      { port: 3000, process: "node server.js", loopbackOnly: false },
      { port: 5173, process: "node /workspace/node_modules/.bin/vite", loopbackOnly: false },
      { port: 8080, process: "python3 -m http.server --bind 127.0.0.1 8080", loopbackOnly: true },
    ]);
  });

  it("leaves out sockets no process of the container holds, ports below 1024, and connections", () => {
    const ports = parseListeningPorts(`${TCP}\n@fds\n${FDS}\n@ps\n${PS}\n`).map((p) => p.port);
    // 39017 (0x9869) belongs to the sidecar; 22 is privileged; inode 1005 is a connection.
    expect(ports).not.toContain(39017);
    expect(ports).not.toContain(22);
  });

  it("lists nothing when no process of the container listens", () => {
    expect(parseListeningPorts(`${TCP}\n@fds\n\n@ps\n${PS}\n`)).toEqual([]);
  });

  it("counts every listening socket when the fd tables cannot be read", () => {
    const ports = parseListeningPorts(`${TCP}\n@fds-denied\n\n@ps\n${PS}\n`).map((p) => p.port);
    expect(ports).toEqual([3000, 5173, 8080, 39017]);
  });

  it("leaves out the resident agent's forwards and marks their ports forwarded", () => {
    // The agent (pid 45) forwards 8080 on the container's address 172.17.0.5 (inode 1008).
    const forward = "   5: 050011AC:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1008 1";
    const tables = TCP.replace(
      "\n  sl  local_address                         remote",
      `\n${forward}\n  sl  local_address                         remote`,
    );
    const fds = `${FDS}\n/proc/45/fd socket:[1008]`;
    const ps = `${PS}\n   45 python3 -c # cloud-ide resident agent`;
    const ports = parseListeningPorts(
      `${tables}\n@fds\n${fds}\n@ps\n${ps}\n@forwards\n8080 1008\n3000 ! another process already listens\n`,
    );
    expect(ports.find((p) => p.port === 8080)).toEqual({
      port: 8080,
      process: "python3 -m http.server --bind 127.0.0.1 8080",
      loopbackOnly: true,
      forwarded: true,
    });
    // A reason is kept only for a port that listens on loopback only.
    expect(ports.find((p) => p.port === 3000)).toEqual({ port: 3000, process: "node server.js", loopbackOnly: false });
  });

  it("leaves out a forward the agent has opened before the forwards file lists it", () => {
    // The agent (pid 45) has just bound 8080 on 172.17.0.5 (inode 1008); the file does not say so yet.
    const forward = "   5: 050011AC:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1008 1";
    const tables = TCP.replace(
      "\n  sl  local_address                         remote",
      `\n${forward}\n  sl  local_address                         remote`,
    );
    const fds = `${FDS}\n/proc/45/fd socket:[1008]`;
    const ps = `${PS}\n   45 python3 -c # cloud-ide resident agent (the name tests and people find it by`;
    const ports = parseListeningPorts(`${tables}\n@fds\n${fds}\n@ps\n${ps}\n@forwards\n`);
    expect(ports.find((p) => p.port === 8080)).toEqual({
      port: 8080,
      process: "python3 -m http.server --bind 127.0.0.1 8080",
      loopbackOnly: true,
    });
  });

  it("says why a loopback-only port could not be forwarded", () => {
    const ports = parseListeningPorts(
      `${TCP}\n@fds\n${FDS}\n@ps\n${PS}\n@forwards\n8080 ! more than 64 ports listen on loopback only\n`,
    );
    expect(ports.find((p) => p.port === 8080)).toMatchObject({
      loopbackOnly: true,
      forwardError: "more than 64 ports listen on loopback only",
    });
    expect(ports.find((p) => p.port === 8080)?.forwarded).toBeUndefined();
  });
});
