// Meshes previewed on their node: on the rock example every mesh node (and the output it
// feeds) draws its shaded picture, a PNG the page loads; moving the roughness slider
// changes the pictures downstream of it, not the sphere's.
import { args, open, check, until, previews, run } from "./lib.mjs";

const MESHES = ["ball", "lumps", "squash", "facets", "rock"];

run(async () => {
  const { url, artifacts } = args();
  const { page, shot, close } = await open(artifacts);
  await page.goto(url);
  const before = await until(async () => {
    const p = await previews(page);
    return MESHES.every((id) => p[id]) ? p : null;
  }, "a picture on every mesh node");
  for (const id of MESHES) {
    const r = await page.evaluate(async (href) => {
      const res = await fetch(href);
      const b = await createImageBitmap(await res.blob());
      return { type: res.headers.get("content-type"), w: b.width, h: b.height };
    }, before[id]);
    check(r.type === "image/png" && r.w > 0 && r.h > 0, `${id}: ${JSON.stringify(r)}`);
  }
  check(before.ball !== before.facets, "the sphere and the rock show the same picture");
  await shot("rock-meshes");
  await page.locator('#nodes g.node[data-id="roughness"] rect.grab').click();
  const slider = page.locator('#inspector [data-field="default"] input[type="range"]');
  await until(async () => (await slider.count()) === 1, "roughness's slider");
  await slider.focus();
  for (let i = 0; i < 5; i++) await page.keyboard.press("ArrowRight");
  const after = await until(async () => {
    const p = await previews(page);
    return ["lumps", "squash", "facets", "rock"].every((id) => p[id] && p[id] !== before[id]) ? p : null;
  }, "the pictures downstream of roughness to change");
  check(after.ball === before.ball, "the sphere's picture changed");
  // The inspector, its slider still focused, shows the new value too.
  await until(() => page.evaluate(() => {
    const c = document.querySelector("#inspector .insp-shown code");
    return !!c && c.textContent !== "0.32";
  }), "the inspector's preview of the new roughness");
  await shot("rock-rougher");
  await close();
});
