// What the studio's Playwright scripts share: launching Debian's Chromium through
// playwright-core (found in the folder $KILN_PLAYWRIGHT, installed by .ci/run), the
// server's messages as the page receives them, screenshots, and small checks.
import { createRequire } from "node:module";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = process.env.KILN_PLAYWRIGHT;
if (!dir) throw new Error("KILN_PLAYWRIGHT is not set (the folder holding node_modules/playwright-core)");
const require = createRequire(join(dir, "node_modules", "noop.js"));
const { chromium } = require("playwright-core");

/// The arguments every script is given: the studio's URL, the graph file, the artifacts folder.
export function args() {
  const [url, file, artifacts] = process.argv.slice(2);
  if (!url || !file || !artifacts) throw new Error("usage: SCRIPT URL GRAPH-FILE ARTIFACTS-DIR");
  return { url, file, artifacts };
}

/// A fresh headless Chromium (its own profile, no network of its own) and a page.
export async function open(artifacts) {
  const profile = mkdtempSync(join(tmpdir(), "kiln-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.KILN_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1600, height: 900 },
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
  const page = context.pages()[0] || (await context.newPage());
  const messages = [];
  page.on("websocket", (ws) => {
    ws.on("framereceived", (f) => {
      try { messages.push(JSON.parse(f.payload)); } catch { /* binary */ }
    });
  });
  page.on("pageerror", (e) => { console.log("page error:", e.message); pageErrors.push(e.message); });
  const pageErrors = [];
  let step = 0;
  const shot = async (name) => {
    step += 1;
    const path = join(artifacts, `${String(step).padStart(2, "0")}-${name}.png`);
    // Every thumbnail on the page fetched and decoded first, then a frame painted.
    await page.evaluate(async () => {
      const hrefs = [...document.querySelectorAll("image.preview")].map((i) => i.getAttribute("href"));
      await Promise.all(hrefs.map((h) => { const im = new Image(); im.src = h; return im.decode().catch(() => {}); }));
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    });
    await page.screenshot({ path });
    console.log("screenshot:", path);
  };
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
    if (pageErrors.length) throw new Error("the page threw: " + pageErrors.join("; "));
  };
  return { page, messages, shot, close, context };
}

/// Fail with `what` unless `cond`.
export function check(cond, what) {
  if (!cond) throw new Error("check failed: " + what);
}

/// Wait until `pred()` holds (polling), failing with `what` after `ms`.
export async function until(pred, what, ms = 60000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out waiting for " + what);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/// The first `cooked` message after index `from` (of `messages`) with version > `after`.
export async function cookedAfter(messages, after, from = 0) {
  return until(() => messages.slice(from).find((m) => m.type === "cooked" && m.version > after),
    `a cook of a version after ${after}`, 120000);
}

/// The newest graph version the page has been sent.
export function lastVersion(messages) {
  let v = 0;
  for (const m of messages) if (m.type === "graph" && m.version > v) v = m.version;
  return v;
}

/// Every node's preview href, by id.
export async function previews(page) {
  return page.evaluate(() => {
    const out = {};
    for (const g of document.querySelectorAll("#nodes g.node")) {
      const img = g.querySelector("image.preview");
      out[g.dataset.id] = img ? img.getAttribute("href") : null;
    }
    return out;
  });
}

/// The ids of the nodes drawn.
export async function nodeIds(page) {
  return page.$$eval("#nodes g.node", (gs) => gs.map((g) => g.dataset.id));
}

/// The centre of an element on screen.
export async function centre(locator) {
  const b = await locator.boundingBox();
  if (!b) throw new Error("not on screen: " + locator);
  return [b.x + b.width / 2, b.y + b.height / 2];
}

/// Press the mouse at `from`, move to `to` in steps, release: a drag as a hand makes it.
export async function drag(page, from, to, steps = 12) {
  await page.mouse.move(from[0], from[1]);
  await page.mouse.down();
  await page.mouse.move(to[0], to[1], { steps });
  await page.mouse.up();
}

/// Run `main`, exiting non-zero (with the error) if it fails.
export function run(main) {
  main().then(() => process.exit(0), (e) => { console.error(e && e.stack || e); process.exit(1); });
}
