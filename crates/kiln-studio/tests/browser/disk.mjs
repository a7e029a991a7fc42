// An edit of the file on disk, as a text editor makes it (a new node, a changed param),
// shows up in the open page: the node is drawn with its preview, the inspector shows the
// new value.
import { readFileSync, writeFileSync, renameSync } from "node:fs";
import { args, open, check, until, nodeIds, run } from "./lib.mjs";

run(async () => {
  const { url, file, artifacts } = args();
  const { page, shot, close } = await open(artifacts);
  await page.goto(url);
  await until(async () => (await nodeIds(page)).length === 11, "the 11 nodes of marble");
  await shot("before-disk-edit");
  const doc = JSON.parse(readFileSync(file, "utf8"));
  doc.nodes.extra = { op: "image.invert", inputs: { image: "clamped.out" } };
  doc.nodes.fine.params.octaves = 3;
  writeFileSync(file + ".tmp", JSON.stringify(doc, null, 2));
  renameSync(file + ".tmp", file);
  await until(async () => (await page.locator('#nodes g.node[data-id="extra"] image.preview').count()) === 1,
    "the node added on disk, drawn with its preview");
  await page.locator('#nodes g.node[data-id="fine"] rect.grab').click();
  const slider = page.locator('#inspector [data-field="octaves"] input[type="range"]');
  await until(async () => (await slider.count()) === 1 && (await slider.inputValue()) === "3", "octaves = 3 in the inspector");
  check((await nodeIds(page)).length === 12, "12 nodes drawn");
  await shot("after-disk-edit");
  await close();
});
