export const TOKEN_HEADER: string;
export const PORT_HEADER: string;
export function checkGateRequest(
  head: string,
  rules: { token: string; isAllowedTarget: (address: string) => boolean },
): { ok: true; egressPort: number; head: string } | { ok: false; status: number; reason: string };
export function startEgressGate(options: {
  listenHost: string;
  workerdHost: string;
  token: string;
  hostAddresses: string[];
  log?: (message: string) => void;
}): Promise<{ port: number; close: () => Promise<void> }>;
