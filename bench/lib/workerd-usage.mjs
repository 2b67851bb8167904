// The workerd processes of the IDE under benchmark and what they use (Linux /proc).
import { readdirSync, readFileSync } from "node:fs";

/** The workerd processes in the dev server's process group (`serverPid` leads it). */
export function workerdPids(serverPid) {
  if (!serverPid) return [];
  return readdirSync("/proc").filter((pid) => {
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "workerd") return false;
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) === serverPid;
    } catch {
      return false;
    }
  });
}

/** CPU seconds used so far and resident memory (MiB) of `pids`; a process that ended meanwhile counts nothing. */
export function usage(pids) {
  const ticks = 100; // USER_HZ on Linux
  let cpu = 0;
  let rss = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      cpu += (Number(fields[11]) + Number(fields[12])) / ticks;
      rss += Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
    } catch {
      // Ended while it was read.
    }
  }
  return { cpu, rss };
}
