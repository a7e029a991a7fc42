// Edit-to-preview latency measured in the browser (a benchmark, not a test): 100 edits of
// marble's `mix` typed into its number field; each timed from the page handing the edit to
// its WebSocket to the load of the graph output's new thumbnail in the page. Prints the
// median and the 95th percentile.
import { args, open, check, until, nodeIds, run } from "./lib.mjs";

const EDITS = Number(process.env.KILN_LATENCY_EDITS || 100);

run(async () => {
  const { url, artifacts } = args();
  const { page, shot, close, context } = await open(artifacts);
  await context.addInitScript(() => {
    window.__lat = { sent: 0, shown: [], href: null };
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
      if (String(data).includes('"set_param"')) window.__lat.sent = performance.now();
      return send.call(this, data);
    };
    // The output's thumbnail shown: its <image> loaded with a new href.
    document.addEventListener("load", (ev) => {
      const t = ev.target;
      if (!(t instanceof SVGImageElement) || !t.classList.contains("preview")) return;
      const g = t.closest("g.node");
      if (!g || g.dataset.id !== "marble") return;
      const href = t.getAttribute("href");
      if (href === window.__lat.href) return;
      window.__lat.href = href;
      if (window.__lat.sent) window.__lat.shown.push({ href, ms: performance.now() - window.__lat.sent });
      window.__lat.sent = 0;
    }, true);
  });
  await page.goto(url);
  await until(async () => (await nodeIds(page)).length === 11, "the 11 nodes of marble");
  await until(() => page.evaluate(() => window.__lat.href), "marble's first thumbnail");
  await page.locator('#nodes g.node[data-id="mix"] rect.grab').click();
  const field = page.locator('#inspector [data-field="default"] input[type="number"]');
  await until(async () => (await field.count()) === 1, "mix's number field");
  for (let i = 0; i < EDITS; i++) {
    // Never 0.35 (the value it starts at): every edit changes the output.
    const value = (0.201 + 0.003 * i).toFixed(3);
    const n = await page.evaluate(() => window.__lat.shown.length);
    await field.fill(value);
    await field.press("Enter");
    await until(() => page.evaluate((n) => window.__lat.shown.length > n, n), `edit ${i} shown`, 120000);
  }
  const ms = (await page.evaluate(() => window.__lat.shown.map((s) => s.ms))).slice(-EDITS);
  check(ms.length === EDITS, `${ms.length} of ${EDITS} edits timed`);
  const sorted = ms.slice().sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  const p95 = sorted[Math.ceil(sorted.length * 0.95) - 1];
  await shot("latency-done");
  console.log(`marble 256², ${EDITS} edits of \`mix\` in the browser, message sent -> thumbnail shown:`);
  console.log(`  median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms (min ${sorted[0].toFixed(1)}, max ${sorted[sorted.length - 1].toFixed(1)})`);
  await close();
});
