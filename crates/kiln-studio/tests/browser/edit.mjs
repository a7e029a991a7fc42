// The studio on marble, driven as a user drives it: the page shows every node with its
// preview; a param changed with its slider (keyboard) re-cooks only its cone and changes
// only the cone's previews; a broken value typed into its number field puts the error on
// its node and the last good previews stay.
import { args, open, check, until, cookedAfter, lastVersion, previews, nodeIds, run } from "./lib.mjs";

const IDS = ["mix", "tint", "coarse", "fine", "blend", "stretch", "veins", "clamped", "colour", "tinted", "marble"];
const FINE_CONE = ["fine", "blend", "stretch", "veins", "clamped", "tinted", "marble"];
const VALUES = ["mix", "tint"]; // plain values: text previews, no image

run(async () => {
  const { url, artifacts } = args();
  const { page, messages, shot, close } = await open(artifacts);
  await page.goto(url);
  // Every node drawn, every image node with its preview.
  await until(async () => {
    const p = await previews(page);
    return IDS.every((id) => id in p && (VALUES.includes(id) || p[id]));
  }, "every node and its preview");
  const drawn = await nodeIds(page);
  check(drawn.length === IDS.length, `drawn ${drawn} is not ${IDS}`);
  await until(() => messages.some((m) => m.type === "cooked"), "the first cooked message on the socket");
  const before = await previews(page);
  await shot("loaded");

  // Select `fine` by clicking its title, then move its octaves slider one step with the keyboard.
  await page.locator('#nodes g.node[data-id="fine"] rect.grab').click();
  await until(async () => (await page.locator("#inspector h2").textContent()) === "fine", "the inspector on fine");
  const slider = page.locator('#inspector [data-field="octaves"] input[type="range"]');
  check(await slider.inputValue() === "7", "octaves starts at 7");
  const v0 = lastVersion(messages);
  const from = messages.length;
  await slider.focus();
  await page.keyboard.press("ArrowLeft");
  const cooked = await cookedAfter(messages, v0, from);
  check(cooked.ok, "the edit cooked: " + JSON.stringify(cooked.error));
  for (const id of FINE_CONE) {
    const st = cooked.nodes[id] && cooked.nodes[id].status;
    check(st === "cooked" || st === "cut_off", `${id} in the cone was ${st}`);
  }
  for (const id of IDS.filter((i) => !FINE_CONE.includes(i))) {
    const st = cooked.nodes[id] && cooked.nodes[id].status;
    check(st === "reused", `${id} outside the cone was ${st}`);
  }
  console.log("report:", cooked.report.text.split("\n")[0]);
  const after = await until(async () => {
    const p = await previews(page);
    return FINE_CONE.every((id) => p[id] && p[id] !== before[id]) ? p : null;
  }, "the cone's previews to change");
  for (const id of IDS.filter((i) => !FINE_CONE.includes(i))) {
    check(after[id] === before[id], `${id} outside the cone changed its preview`);
  }
  // The page's report names the counts of this cook.
  const g = cooked.report.graph;
  check(g.reused === IDS.length - FINE_CONE.length && g.cooked + g.cut_off === FINE_CONE.length,
    "the counts: " + JSON.stringify(g));
  await until(async () => (await page.locator("#report").textContent()).startsWith(
    `${g.cooked} cooked · ${g.reused} reused · ${g.cut_off} cut off`), "the page's report of this cook");
  await shot("octaves-edited");

  // A broken value typed into coarse's width: the error on its node, the last previews kept.
  await page.locator('#nodes g.node[data-id="coarse"] rect.grab').click();
  await until(async () => (await page.locator("#inspector h2").textContent()) === "coarse", "the inspector on coarse");
  const width = page.locator('#inspector [data-field="width"] input[type="number"]');
  const v1 = lastVersion(messages);
  const from1 = messages.length;
  await width.click({ clickCount: 3 });
  await page.keyboard.type("-3");
  await page.keyboard.press("Enter");
  const broken = await cookedAfter(messages, v1, from1);
  const c = broken.nodes.coarse || {};
  const said = JSON.stringify([c.error, c.errors]);
  check(said.includes("width"), "the error does not name width: " + said);
  const err = page.locator('#nodes g.node[data-id="coarse"] .error-text');
  await until(async () => (await err.count()) > 0, "the error drawn on coarse");
  check((await err.first().textContent()).includes("width"), "the error on coarse names width");
  // The inspector, still holding the field typed into, says it too.
  await until(() => page.evaluate(() => {
    const e = document.querySelector("#inspector .insp-error");
    return !!e && e.textContent.includes("width");
  }), "the error in the inspector");
  const kept = await previews(page);
  for (const id of IDS.filter((i) => !VALUES.includes(i))) {
    check(kept[id] === after[id], `${id}: the last good preview did not stay (${kept[id]} vs ${after[id]})`);
  }
  // Only coarse shows an error.
  const errs = await page.$$eval("#nodes g.node", (gs) => gs.filter((g) => g.querySelector(".error-text")).map((g) => g.dataset.id));
  check(errs.length === 1 && errs[0] === "coarse", "errors shown on " + errs);
  await shot("broken-width");
  await close();
});
