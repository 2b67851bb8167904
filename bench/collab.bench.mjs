// Co-editing (issue 24): the document server under load. 10 participants
// (guests, over the y-protocols socket the page uses) each typing 10 letters a
// second into one file for 15 s: how long an edit takes to reach all the
// others, against the same with 2 participants; and workerd's CPU time and
// memory (the process that runs the Worker and the Workspace Durable Object
// holding the document) against the same 15 s with the 10 connected and idle.
// Then in Chromium, two people (the owner and an invited editor) with the
// file open: a letter typed by one until the other's editor shows it, against
// the same letter typed into the terminal both watch until the other's
// terminal shows it.
import { connectCollab } from "../scripts/lib/collab-client.mjs";
import { launchChromium, openIdePage } from "./lib/browser.mjs";
import { joinAsGuest, signIn } from "./lib/session.mjs";
import { median, percentile } from "./lib/stats.mjs";
import { usage, workerdPids } from "./lib/workerd-usage.mjs";

export const title = "Co-editing";

const FILE = "shared.txt";
const PARTICIPANTS = 10;
const TYPING_SECONDS = 15;
const KEYS_PER_SECOND = 10;
const BROWSER_RUNS = 21;
/** Typed by the owner in the browser figure; counted in the other's editor and terminal. */
const LETTER = "Q";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function run({ baseUrl, serverPid }) {
  const owner = await signIn(baseUrl);
  const { id } = await owner.json("/api/workspaces", {
    method: "POST",
    body: { name: "bench collab", template: "empty" },
  });
  const put = await owner.fetch(`/api/workspaces/${id}/files/content?path=${FILE}`, {
    method: "PUT",
    body: "start\n",
  });
  if (!put.ok) throw new Error(`writing ${FILE}: ${put.status} ${await put.text()}`);
  const invite = await owner.json(`/api/workspaces/${id}/invites`, {
    method: "POST",
    body: { role: "editor", ttlSeconds: 3600 },
  });
  const token = new URL(invite.url).hash.slice(1);
  const guest = async (name) => ({ cookie: await joinAsGuest(baseUrl, id, token, name) });
  try {
    const rows = await underLoad(baseUrl, id, guest, serverPid);
    rows.push(...(await inBrowsers(baseUrl, owner, id, await guest("Browser guest"))));
    return rows;
  } finally {
    await owner.fetch(`/api/workspaces/${id}`, { method: "DELETE" });
  }
}

async function underLoad(baseUrl, id, guest, serverPid) {
  const url = new URL(`/ws/workspaces/${id}/collab/file`, baseUrl);
  url.protocol = "ws:";
  url.searchParams.set("path", FILE);
  const connect = async (count) => {
    const clients = [];
    for (let i = 0; i < count; i++) {
      const { cookie } = await guest(`Typist ${i + 1}`);
      clients.push(await connectCollab(url, { Origin: baseUrl, Cookie: cookie }));
    }
    return clients;
  };
  /**
   * Each client types KEYS_PER_SECOND letters a second at its own spot for `seconds`; answers how long
   * each letter took to reach every other client (ms).
   */
  const type = async (clients, seconds) => {
    const reach = [];
    const pending = new Map();
    clients.forEach((client, index) => {
      client.text.observe((event) => {
        if (event.transaction.local) return;
        for (const delta of event.changes.delta) {
          if (typeof delta.insert !== "string") continue;
          for (const mark of delta.insert.match(/<\d+>/g) ?? []) {
            const entry = pending.get(mark);
            if (!entry) continue;
            entry.seen.add(index);
            if (entry.seen.size === clients.length) {
              reach.push(performance.now() - entry.at);
              pending.delete(mark);
            }
          }
        }
      });
    });
    let sent = 0;
    const end = performance.now() + seconds * 1000;
    await Promise.all(
      clients.map(async (client, index) => {
        while (performance.now() < end) {
          const mark = `<${sent++}>`;
          pending.set(mark, { at: performance.now(), seen: new Set([index]) });
          // At the start of the client's own line, as people type in different places of one file.
          client.text.insert(Math.min(client.text.length, index), mark);
          await sleep(1000 / KEYS_PER_SECOND);
        }
      }),
    );
    await sleep(2000);
    return { reach, sent, lost: pending.size };
  };

  const pids = workerdPids(serverPid);
  const rows = [];
  const pair = await connect(2);
  const two = await type(pair, 5);
  for (const client of pair) client.close();

  const clients = await connect(PARTICIPANTS);
  await sleep(2000);
  const idleStart = usage(pids);
  await sleep(TYPING_SECONDS * 1000);
  const idleEnd = usage(pids);
  const ten = await type(clients, TYPING_SECONDS);
  const busyEnd = usage(pids);
  for (const client of clients) client.close();
  if (ten.lost > 0 || two.lost > 0) throw new Error(`edits never reached everyone: ${ten.lost + two.lost}`);

  rows.push(
    {
      metric: `an edit -> all ${PARTICIPANTS - 1} others, ${PARTICIPANTS} typing ${KEYS_PER_SECOND}/s each, p50`,
      ours: median(ten.reach),
      reference: median(two.reach),
      referenceName: "2 participants",
      unit: "ms",
    },
    {
      metric: "the same, p95",
      ours: percentile(ten.reach, 95),
      reference: percentile(two.reach, 95),
      referenceName: "2 participants",
      unit: "ms",
    },
  );
  if (pids.length > 0) {
    rows.push(
      {
        metric: `workerd CPU, ${PARTICIPANTS} typing (${ten.sent} edits in ${TYPING_SECONDS} s)`,
        ours: ((busyEnd.cpu - idleEnd.cpu) / TYPING_SECONDS) * 100,
        reference: Math.max(0.01, ((idleEnd.cpu - idleStart.cpu) / TYPING_SECONDS) * 100),
        referenceName: `${PARTICIPANTS} connected, idle`,
        unit: "% of a core",
      },
      {
        metric: "workerd resident memory after the typing",
        ours: busyEnd.rss,
        reference: idleStart.rss,
        referenceName: `${PARTICIPANTS} connected, before`,
        unit: "MiB",
      },
    );
  }
  return rows;
}

/**
 * The browser figure: the owner types a letter in the shared file; the time
 * until the guest's editor shows it. The reference is the same letter typed
 * by the owner into the terminal both watch (tmux echoes it to every client),
 * until the guest's terminal shows it. Both are read in the guest's page once
 * a frame, and timed across the two pages on the clock they share
 * (performance.timeOrigin + performance.now()).
 */
async function inBrowsers(baseUrl, owner, id, guestCookie) {
  const browser = await launchChromium();
  try {
    const ownerPage = await openIdePage(browser, baseUrl, owner, id);
    const guestPage = await openIdePage(browser, baseUrl, guestCookie, id);
    for (const page of [ownerPage, guestPage]) {
      const hasHooks = await page.evaluate(() => typeof window.__cloudIde?.editorText === "function");
      if (!hasHooks) throw new Error("the IDE under benchmark has no test hooks (CLOUD_IDE_TEST_HOOKS=1)");
      await page.locator(`[data-testid="file-tree"] [data-path="${FILE}"]`).click({ timeout: 60_000 });
      // Its text is the typists' by now (their marks inside "start"): any text will do.
      await page.waitForFunction(() => (window.__cloudIde.editorText() ?? "").length > 0, null, { timeout: 60_000 });
    }
    await ownerPage.evaluate(() => {
      window.__benchKey = 0;
      window.addEventListener("keydown", () => (window.__benchKey = performance.timeOrigin + performance.now()), {
        capture: true,
      });
    });
    const editor = ownerPage.locator('[data-testid="code-editor"] .cm-content');
    const terminal = ownerPage.locator('.terminal-view:not(.inactive) [data-testid="terminal"]');
    /** Resolves, in the guest's page, when `read` (a hook's name) shows one more LETTER than now: the epoch ms. */
    const shown = (hookName) =>
      guestPage.evaluate(
        ({ hookName, letter }) =>
          new Promise((resolve) => {
            const count = () => (window.__cloudIde[hookName]() ?? "").split(letter).length;
            const before = count();
            const check = () => {
              if (count() > before) resolve(performance.timeOrigin + performance.now());
              else requestAnimationFrame(check);
            };
            requestAnimationFrame(check);
          }),
        { hookName, letter: LETTER },
      );
    const once = async (target, hookName) => {
      await target.click();
      if (target === editor) await ownerPage.keyboard.press("Control+End");
      const seen = shown(hookName);
      await ownerPage.waitForTimeout(50);
      await ownerPage.keyboard.type(LETTER);
      const at = await seen;
      return at - (await ownerPage.evaluate(() => window.__benchKey));
    };
    const letters = [];
    const echoes = [];
    for (let i = 0; i < BROWSER_RUNS; i++) {
      // By turns, the first rotating, so a busy moment does not fall on one side only.
      if (i % 2 === 0) {
        letters.push(await once(editor, "editorText"));
        echoes.push(await once(terminal, "terminalText"));
      } else {
        echoes.push(await once(terminal, "terminalText"));
        letters.push(await once(editor, "editorText"));
      }
    }
    await terminal.click();
    await ownerPage.keyboard.press("Control+u");
    return [
      {
        metric: `a letter typed by one person -> the other's editor (p50 of ${BROWSER_RUNS})`,
        ours: median(letters),
        reference: median(echoes),
        referenceName: "the same letter -> the other's view of a shared terminal",
        unit: "ms",
      },
      {
        metric: "the same, p95",
        ours: percentile(letters, 95),
        reference: percentile(echoes, 95),
        referenceName: "the same letter -> the other's view of a shared terminal",
        unit: "ms",
      },
    ];
  } finally {
    await browser.close();
  }
}
