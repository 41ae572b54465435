// Shots from pictures and clips, as a user makes them: a picture dropped on the console starts
// a clip, a frame grabbed from a library video joins the strip, a saved video is extended and
// remixed, and the Info modal says what each was made from.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fromMenu, screenshot, serverAndPage, TOKEN, waitForDone, waitUntil } from "./harness.mjs";

const PROJECT = "shots";
const t = serverAndPage({ width: 1440, height: 900 });

/** Page helpers, installed before the app loads (the page's CSP forbids eval): the test
 * picture, PSNR of two canvases, and the picture a video shows at a moment. */
function installHelpers() {
  /** Sky, sun and hills on a 1280x720 canvas. */
  const picture = () => {
    const canvas = document.createElement("canvas");
    canvas.width = 1280;
    canvas.height = 720;
    const g = canvas.getContext("2d");
    const sky = g.createLinearGradient(0, 0, 0, 720);
    sky.addColorStop(0, "#2b6cd8");
    sky.addColorStop(1, "#f2b36b");
    g.fillStyle = sky;
    g.fillRect(0, 0, 1280, 720);
    g.fillStyle = "#ffd84a";
    g.beginPath();
    g.arc(900, 220, 110, 0, Math.PI * 2);
    g.fill();
    g.fillStyle = "#2f7a3a";
    g.beginPath();
    g.ellipse(350, 760, 700, 260, 0, 0, Math.PI * 2);
    g.fill();
    return canvas;
  };
  /** PSNR in dB of two same-sized canvases' RGB. */
  const psnr = (a, b) => {
    const x = a.getContext("2d").getImageData(0, 0, a.width, a.height).data;
    const y = b.getContext("2d").getImageData(0, 0, b.width, b.height).data;
    let sum = 0;
    let n = 0;
    for (let i = 0; i < x.length; i += 4) {
      for (let c = 0; c < 3; c++) {
        const d = x[i + c] - y[i + c];
        sum += d * d;
        n++;
      }
    }
    return 10 * Math.log10((255 * 255) / Math.max(sum / n, 1e-9));
  };
  /** The picture `src` shows at `at` seconds ("end": its last frame), on a canvas. */
  const frame = async (src, at) => {
    const video = document.createElement("video");
    video.muted = true;
    video.preload = "auto";
    video.src = src;
    await new Promise((resolve, reject) => {
      video.onloadeddata = resolve;
      video.onerror = reject;
    });
    const time = at === "end" ? video.duration : at;
    if (time > 0) {
      video.currentTime = time;
      await new Promise((resolve) => video.addEventListener("seeked", resolve, { once: true }));
    }
    const canvas = document.createElement("canvas");
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    canvas.getContext("2d").drawImage(video, 0, 0);
    return canvas;
  };
  window.shotTest = { picture, psnr, frame };
}

/** Generates from the prompt box and waits for the new job to finish; answers its row. */
async function generate(prompt) {
  const before = await t.page.locator("li.job").count();
  await t.page.getByPlaceholder("Describe the video you want to generate...").fill(prompt);
  await t.page.getByRole("button", { name: "Generate" }).click();
  await t.page.getByRole("heading", { name: `Jobs (${before + 1})` }).waitFor();
  return waitForDone(t.page);
}

test("a picture dropped on the console becomes the clip's first frame", async () => {
  await t.page.addInitScript(installHelpers);
  await t.page.goto(`${t.server.url}/${PROJECT}`);
  await t.page.getByText("No generation jobs yet.").waitFor();
  const transfer = await t.page.evaluateHandle(async () => {
    const blob = await new Promise((r) => window.shotTest.picture().toBlob(r, "image/png"));
    const data = new DataTransfer();
    data.items.add(new File([blob], "hills.png", { type: "image/png" }));
    return data;
  });
  await t.page.locator("section.console").dispatchEvent("drop", { dataTransfer: transfer });
  const reference = t.page.locator("li.reference:not(.add)").first();
  await reference.waitFor();
  assert.match(await reference.locator("img").getAttribute("alt"), /Uploaded/);

  await reference.getByRole("combobox").selectOption("first_frame");
  assert.equal(await t.page.locator("li.reference.attached").count(), 1);
  await screenshot(t.page, "shot-first-frame");
  const row = await generate("the sun sets behind the hills");
  assert.equal(await t.page.locator("li.reference.attached").count(), 0, "roles cleared");
  const job = await t.page.evaluate(() => window.studio.jobs()[0]);
  assert.equal(job.inputs[0].role, "first_frame");

  const scores = await t.page.evaluate(async (src) => {
    const { picture, psnr, frame } = window.shotTest;
    const original = picture();
    return {
      first: psnr(await frame(src, 0), original),
      middle: psnr(await frame(src, 5), original),
    };
  }, job.preview_url);
  assert.ok(scores.first >= 30, `first frame at ${scores.first.toFixed(1)} dB`);
  assert.ok(scores.middle < scores.first, "the scene moves on from the picture");

  await row.getByRole("button", { name: "Save to Library" }).click();
  await row.getByText("✓ Saved to library").waitFor();
});

test("a frame grabbed from a library video joins the strip", async () => {
  const card = t.page.locator(".asset").first();
  await card.waitFor();
  await card.hover();
  const video = card.locator("video");
  await video.waitFor();
  await video.evaluate(async (el) => {
    el.pause();
    el.currentTime = 2.5;
    await new Promise((r) => el.addEventListener("seeked", r, { once: true }));
  });
  await fromMenu(card, "Grab frame at playhead");
  await t.page.locator("li.reference:not(.add)").nth(1).waitFor();
  const [newest] = await t.page.evaluate(() => window.studio.view("shot").references);
  const fileName = await card.evaluate((el) => el.dataset.key.split("/").pop());
  assert.equal(newest.origin, `2.50 s of ${fileName}`);
  assert.equal(`${newest.width}x${newest.height}`, "1280x720");
});

test("a saved video is extended and remixed, and the Info modal shows the lineage", async () => {
  const card = t.page.locator(".asset").first();
  const source = await card.evaluate((el) => el.dataset.key.split("/").pop());
  const sourceUrl = await card.locator("video").getAttribute("src");

  await fromMenu(card, "Extend");
  await t.page.locator(".shot-video").getByText(source).waitFor();
  await generate("the night falls");
  const job = await t.page.evaluate(() => window.studio.jobs()[0]);
  assert.equal(job.parent, source);
  assert.equal(job.size, "1280x720");
  assert.equal(await t.page.locator(".shot-video").count(), 0, "the video is cleared");
  const joined = await t.page.evaluate(
    async ([from, to]) => {
      const { psnr, frame } = window.shotTest;
      return psnr(await frame(to, 0), await frame(from, "end"));
    },
    [sourceUrl, job.preview_url],
  );
  assert.ok(joined >= 30, `the extension starts where the source ends: ${joined.toFixed(1)} dB`);

  await fromMenu(card, "Remix");
  await t.page.locator(".shot-video").getByText("Remix").waitFor();
  await generate("a snowy night over the hills");
  const remix = await t.page.evaluate(() => window.studio.jobs()[0]);
  assert.equal(remix.parent, source);
  assert.equal(remix.inputs[0].role, "remix");

  const extended = t.page.locator(`li.job[data-job-id="${job.sora_job_id}"]`);
  await extended.getByRole("button", { name: "Save to Library" }).click();
  await extended.getByText("✓ Saved to library").waitFor();
  await t.page.getByRole("heading", { name: "Asset Library (2 videos)" }).waitFor();
  const extendedCard = t.page.locator(`.asset[data-key$="${job.sora_job_id}.mp4"]`);
  // The library draws the cards near the screen: it is brought into view first.
  await t.page.getByRole("heading", { name: /^Asset Library/ }).scrollIntoViewIfNeeded();
  await extendedCard.getByRole("button", { name: "Info" }).click();
  const dialog = t.page.getByRole("dialog");
  const lineage = dialog.locator(".lineage");
  await lineage.waitFor();
  await waitUntil(async () => (await lineage.textContent()).includes(source));
  assert.match(await lineage.textContent(), /Extend/);
  await screenshot(t.page, "shot-lineage");
  await dialog.getByRole("button", { name: "Close" }).click();

  // The extension's card links to its source: following it shows the source alone.
  const link = extendedCard.locator(".parent-link");
  await waitUntil(() => link.count());
  await link.click();
  await waitUntil(async () => (await t.page.locator(".asset").count()) === 1);
  assert.equal(
    await t.page.locator(".asset").first().getAttribute("data-key"),
    `projects/${PROJECT}/${source}`,
  );
});

// Fails on refusing an upload while one is in flight: three pictures chosen at once in the
// picker made one reference, and the two others were dropped without a word.
test("three pictures chosen at once become three references", async () => {
  await t.page.goto(`${t.server.url}/${PROJECT}`);
  const references = t.page.locator("li.reference:not(.add)");
  // The project's references as the server has them, once the page shows them all.
  const kept = await fetch(`${t.server.url}/api/projects/${PROJECT}/references`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const before = (await kept.json()).references.length;
  await waitUntil(async () => (await references.count()) === before);
  const pictures = await t.page.evaluate(() =>
    ["#c33", "#3c3", "#33c"].map((colour) => {
      const canvas = document.createElement("canvas");
      canvas.width = 64;
      canvas.height = 64;
      const g = canvas.getContext("2d");
      g.fillStyle = colour;
      g.fillRect(0, 0, 64, 64);
      return canvas.toDataURL("image/png").split(",")[1];
    }),
  );
  await t.page.locator('input[type="file"][aria-label="Reference image file"]').setInputFiles(
    pictures.map((base64, i) => ({
      name: `picture-${i}.png`,
      mimeType: "image/png",
      buffer: Buffer.from(base64, "base64"),
    })),
  );
  await waitUntil(async () => (await references.count()) === before + 3);
  await t.page.getByRole("button", { name: "Add image" }).waitFor();
  const ids = await t.page.evaluate(() => window.studio.view("shot").references.map((r) => r.id));
  assert.equal(new Set(ids).size, ids.length, "three distinct references");
});
