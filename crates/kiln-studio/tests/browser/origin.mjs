// A page of another origin cannot drive the studio: its WebSocket to the studio is refused
// and its requests get 403, while the studio's own page connects.
import { createServer } from "node:http";
import { args, open, check, until, run } from "./lib.mjs";

run(async () => {
  const { url, artifacts } = args();
  const studio = new URL(url);
  const foreign = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html><title>elsewhere</title><pre id="out">trying…</pre><script>
      const out = document.getElementById("out");
      const ws = new WebSocket("ws://${studio.host}/ws");
      window.result = { opened: false, closed: false };
      ws.onopen = () => { window.result.opened = true; out.textContent = "socket OPEN (bad)"; };
      ws.onclose = () => { window.result.closed = true; if (!window.result.opened) out.textContent = "socket refused"; };
      fetch("http://${studio.host}/api/state", { mode: "no-cors" }).catch(() => {});
      fetch("http://${studio.host}/api/ops", { mode: "no-cors" }).catch(() => {});
    </script>`);
  });
  await new Promise((r) => foreign.listen(0, "127.0.0.1", r));
  const elsewhere = `http://127.0.0.1:${foreign.address().port}/`;
  const { page, messages, shot, close } = await open(artifacts);
  const statuses = [];
  page.on("response", (r) => { if (r.url().startsWith(url) || r.url().startsWith(`http://${studio.host}`)) statuses.push([r.url(), r.status()]); });
  await page.goto(elsewhere);
  const result = await until(() => page.evaluate(() => window.result && window.result.closed && window.result), "the foreign socket to close");
  check(!result.opened, "a page of another origin opened the studio's socket");
  await until(() => ["/api/state", "/api/ops"].every((p) => statuses.some(([u]) => u.endsWith(p))),
    "the foreign requests' responses");
  for (const [u, s] of statuses) check(s === 403, `${u} answered ${s} to another origin`);
  console.log("foreign origin:", JSON.stringify(statuses));
  await shot("foreign-origin-refused");
  // The studio's own page connects.
  await page.goto(url);
  await until(() => messages.some((m) => m.type === "graph"), "the studio's own page to be sent the graph");
  await shot("own-origin");
  await close();
  foreign.close();
});
