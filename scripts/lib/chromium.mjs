// Debian's Chromium as the tests and the browser benchmarks launch it.
import { chromium } from "playwright-core";

/**
 * Flags for these machines: as root (no sandbox), no GPU, and no background
 * connections (the network refuses them, and a measurement wants none).
 */
export const CHROMIUM_ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Headless Chromium (`CHROMIUM_PATH`, else /usr/bin/chromium). */
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: CHROMIUM_ARGS,
  });
}
