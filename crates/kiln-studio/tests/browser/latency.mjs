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
    window.__lat = { sent: 0, shown: [], href: null, cooked: [] };
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
      if (String(data).includes('"set_param"')) {
        const sent = performance.now();
        window.__lat.sent = sent;
        // When the `cooked` message of this edit arrives, and how long the server cooked.
        const on = (ev) => {
          const m = JSON.parse(ev.data);
          if (m.type !== "cooked") return;
          this.removeEventListener("message", on);
          window.__lat.cooked.push({ ms: performance.now() - sent, cook: m.report ? m.report.ms : 0 });
        };
        this.addEventListener("message", on);
      }
      return send.call(this, data);
    };
    // The output's thumbnail shown: an <image> with a new href drawn on `marble`, its
    // picture fetched and decoded (the same cached resource the <image> paints), then the
    // next frame painted. (SVG <image> load events do not reach a document listener.)
    const seen = (img) => {
      const g = img.closest("g.node");
      if (!g || g.dataset.id !== "marble") return;
      const href = img.getAttribute("href");
      if (!href || href === window.__lat.href) return;
      window.__lat.href = href;
      const sent = window.__lat.sent;
      window.__lat.sent = 0;
      const probe = new Image();
      probe.src = href;
      probe.decode().then(() => requestAnimationFrame(() => {
        if (sent) window.__lat.shown.push({ href, ms: performance.now() - sent });
      }));
    };
    new MutationObserver((records) => {
      for (const r of records) for (const n of r.addedNodes) {
        if (n.nodeType !== 1) continue;
        for (const img of n.matches("image.preview") ? [n] : n.querySelectorAll("image.preview")) seen(img);
      }
    }).observe(document, { childList: true, subtree: true });
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
  const stats = (xs) => {
    const v = xs.slice().sort((a, b) => a - b);
    return [v[Math.floor(v.length / 2)], v[Math.ceil(v.length * 0.95) - 1], v[0], v[v.length - 1]];
  };
  const [median, p95, min, max] = stats(ms);
  const cooked = (await page.evaluate(() => window.__lat.cooked)).slice(-EDITS);
  const [cm, cp] = stats(cooked.map((c) => c.ms));
  const [km, kp] = stats(cooked.map((c) => c.cook));
  await shot("latency-done");
  console.log(`marble 256², ${EDITS} edits of \`mix\` in the browser, message sent -> thumbnail shown:`);
  console.log(`  median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms (min ${min.toFixed(1)}, max ${max.toFixed(1)})`);
  console.log(`  of which: the \`cooked\` message received ${cm.toFixed(1)} / ${cp.toFixed(1)} ms, the server's cook ${km.toFixed(1)} / ${kp.toFixed(1)} ms (median / p95)`);
  await close();
});
