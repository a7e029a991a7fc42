// The studio on marble: the user selects the graph output, sees its colour space in the
// inspector (sRGB, the default), picks `data` from its list, and the edit cooks.
import { args, open, check, until, cookedAfter, lastVersion, run } from "./lib.mjs";

run(async () => {
  const { url, artifacts } = args();
  const { page, messages, shot, close } = await open(artifacts);
  await page.goto(url);
  await until(() => messages.some((m) => m.type === "cooked"), "the first cooked message on the socket");
  await page.locator('#nodes g.node[data-id="marble"] rect.grab').click();
  await until(async () => (await page.locator("#inspector h2").textContent()) === "marble", "the inspector on the output");
  const select = page.locator('#inspector [data-field="color"] select');
  check(await select.inputValue() === "srgb", "the output starts as srgb");
  const options = await select.locator("option").allTextContents();
  check(JSON.stringify(options) === JSON.stringify(["srgb", "data"]), "the spaces offered: " + options);
  const v0 = lastVersion(messages);
  const from = messages.length;
  await select.selectOption("data");
  const cooked = await cookedAfter(messages, v0, from);
  check(cooked.ok, "the edit cooked: " + JSON.stringify(cooked.error));
  // The inspector, drawn again from the new file, shows the new space.
  await until(async () => (await page.locator('#inspector [data-field="color"] select').inputValue()) === "data",
    "the inspector to show data");
  await shot("output-colour");
  await close();
});
