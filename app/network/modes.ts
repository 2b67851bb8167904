import type { NetworkMode } from "../../protocol/network";

/** What the panel calls each mode, and what it means, in the order it offers them. */
export const MODE_LABELS: Record<NetworkMode, { title: string; detail: string }> = {
  allowlist: {
    title: "Allow list",
    detail: "HTTP and HTTPS to the hosts below pass through the IDE, which logs them and adds your secrets.",
  },
  off: { title: "Off", detail: "Nothing leaves the workspace. Requests are answered 403 and logged." },
  open: {
    title: "Open",
    detail: "The workspace reaches the Internet directly. Nothing is checked, logged or added.",
  },
};
