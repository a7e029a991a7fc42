// Structure edited with the mouse: an op found in the op list and added (double-click), the
// new node dragged by its title to a free place (its position saved in the file's editor
// section), and a wire dragged from an output port to its input port (saved in the file).
// The Rust test then checks the file with what `kiln validate` runs.
import { readFileSync } from "node:fs";
import { args, open, check, until, nodeIds, centre, drag, run } from "./lib.mjs";

const readFile = (file) => JSON.parse(readFileSync(file, "utf8"));

/// The world position of a node, from its transform, and the view's scale.
async function placeOf(page, id) {
  return page.evaluate((id) => {
    const g = document.querySelector(`#nodes g.node[data-id="${id}"]`);
    const m = /translate\(([-\d.]+),([-\d.]+)\)/.exec(g.getAttribute("transform"));
    const w = /scale\(([-\d.]+)\)/.exec(document.getElementById("world").getAttribute("transform"));
    return { x: Number(m[1]), y: Number(m[2]), k: Number(w[1]) };
  }, id);
}

run(async () => {
  const { url, file, artifacts } = args();
  const { page, shot, close } = await open(artifacts);
  await page.goto(url);
  await until(async () => (await nodeIds(page)).length === 11, "the 11 nodes of marble");
  await until(async () => (await page.locator("#ops li").count()) > 10, "the op list");
  const canvas = await page.locator("#canvas").boundingBox();
  // Zoom out around the canvas' centre to make room.
  await page.mouse.move(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2);
  await page.mouse.wheel(0, 500);
  await shot("zoomed-out");

  // Search the op list and add image.invert by double-clicking it.
  await page.locator("#search").click();
  await page.keyboard.type("invert");
  const item = page.locator("#ops li", { hasText: /^image\.invert$/ });
  await until(async () => (await item.count()) === 1, "image.invert in the op list");
  const before = new Set(await nodeIds(page));
  await item.dblclick();
  const added = await until(async () => (await nodeIds(page)).find((id) => !before.has(id)), "the added node");
  console.log("added:", added);
  check(readFile(file).nodes[added].op === "image.invert", "the file holds the added node");
  await shot("added");

  // Drag it by its title below the rest of the graph.
  const head = page.locator(`#nodes g.node[data-id="${added}"] rect.grab`);
  const start = await centre(head);
  const boxes = await page.$$eval("#nodes g.node", (gs, added) => gs.filter((g) => g.dataset.id !== added)
    .map((g) => g.getBoundingClientRect()).map((r) => [r.left, r.top, r.right, r.bottom]), added);
  const bottom = Math.max(...boxes.map((b) => b[3]));
  const left = Math.min(...boxes.map((b) => b[0]));
  const headBox = await head.boundingBox();
  const target = [left + headBox.width / 2, bottom + 30 + headBox.height / 2];
  check(target[1] < canvas.y + canvas.height - 60, "room below the graph");
  const p0 = await placeOf(page, added);
  await drag(page, start, target);
  const want = [Math.round(p0.x + (target[0] - start[0]) / p0.k), Math.round(p0.y + (target[1] - start[1]) / p0.k)];
  const saved = await until(() => {
    const pos = ((readFile(file).editor || {}).positions || {})[added];
    return pos && Math.abs(pos[0] - want[0]) <= 1 && Math.abs(pos[1] - want[1]) <= 1 ? pos : null;
  }, `the position ${want} of ${added} in the file's editor section`);
  console.log("moved to:", saved);
  await shot("moved");

  // Drag a wire from stretch's output to the new node's image input.
  const out = page.locator('#nodes circle.port[data-node="stretch"][data-dir="out"]');
  await page.mouse.move(...(await centre(out)));
  const inPort = page.locator(`#nodes circle.port[data-node="${added}"][data-port="image"][data-dir="in"]`);
  await drag(page, await centre(out), await centre(inPort), 20);
  await until(() => {
    const n = readFile(file).nodes[added];
    return n.inputs && n.inputs.image === "stretch.out";
  }, "the wire stretch.out -> image in the file");
  await until(async () => (await page.locator(`#wires path.wire[data-from="stretch"][data-to="${added}"]`).count()) === 1,
    "the wire drawn");
  await until(async () => (await page.locator(`#nodes g.node[data-id="${added}"] image.preview`).count()) === 1,
    "the new node's preview");
  await shot("wired");
  await close();
});
