/**
 * The container trusts the interception CA. With an HTTPS intercept, the
 * platform re-signs the container's HTTPS with a CA of its own (a new one per
 * container) and writes it to {@link PLATFORM_CA}; it sets no variable and
 * leaves the system store alone. After every start this puts that CA in the
 * system bundle (curl, git, Python's ssl, pip and requests through the
 * variables in sandbox/network.sh) and in {@link NODE_CA_FILE}, which
 * NODE_EXTRA_CA_CERTS names for Node. Without a CA (the open mode) both hold
 * only what the image trusts.
 */
import { CA_TRUST_ENV } from "../sandbox/environment";
import type { Sandbox } from "../sandbox/sandbox";

export const PLATFORM_CA = "/etc/cloudflare/certs/cloudflare-containers-ca.crt";
/** Always there (empty without interception): Node warns at every TLS use when the file it names is missing. */
export const NODE_CA_FILE = CA_TRUST_ENV.NODE_EXTRA_CA_CERTS;
export const SYSTEM_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

/**
 * $1: seconds to wait for the platform's CA (0 when nothing is intercepted).
 * The bundle is written from a copy of the image's own, kept the first time:
 * a snapshot holds the bundle of the container it came from, with a CA that
 * is no longer used. The CA also goes to /usr/local/share/ca-certificates, so
 * an `update-ca-certificates` run by the user keeps it.
 */
const TRUST_SCRIPT = `set -e
ca=${PLATFORM_CA}; bundle=${SYSTEM_BUNDLE}; pristine=${SYSTEM_BUNDLE}.image
node=${NODE_CA_FILE}; local=/usr/local/share/ca-certificates/cloud-ide-egress.crt
i=0; while [ ! -s "$ca" ] && [ $i -lt $(($1 * 10)) ]; do sleep 0.1; i=$((i+1)); done
mkdir -p "$(dirname "$node")" "$(dirname "$local")"
[ -e "$pristine" ] || { cp "$bundle" "$pristine.tmp" && mv "$pristine.tmp" "$pristine"; }
if [ -s "$ca" ]; then
  cp "$ca" "$node.tmp" && mv "$node.tmp" "$node"
  cp "$ca" "$local"
  cat "$pristine" "$ca" > "$bundle.tmp" && mv "$bundle.tmp" "$bundle"
  echo trusted
else
  : > "$node"; rm -f "$local"
  cp "$pristine" "$bundle.tmp" && mv "$bundle.tmp" "$bundle"
  echo none
fi`;

/** How long a start waits for the platform to write its CA once HTTPS is intercepted. */
const CA_WAIT_SECONDS = 10;

/**
 * Trusts the CA the platform put in this container. `intercepting`: HTTPS is
 * intercepted, so a CA must come (an error otherwise: HTTPS would fail in
 * the container with certificate errors).
 */
export async function trustInterceptionCa(sandbox: Pick<Sandbox, "run">, intercepting: boolean): Promise<void> {
  const wait = intercepting ? CA_WAIT_SECONDS : 0;
  const { exitCode, stdout, stderr } = await sandbox.run(["sh", "-c", TRUST_SCRIPT, "sh", String(wait)], {
    wake: false,
  });
  if (exitCode !== 0) throw new Error(`trusting the interception CA failed: ${stderr.trim()}`);
  if (intercepting && stdout.trim() !== "trusted") {
    throw new Error(`no interception CA appeared at ${PLATFORM_CA} within ${CA_WAIT_SECONDS} s`);
  }
}
