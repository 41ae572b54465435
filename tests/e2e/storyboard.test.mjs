// From a script to a storyboard in the browser: a Fountain screenplay imported in the Sequence
// panel, a picture given to a character of the cast, every shot generated with one take after
// its estimate, each shot showing its take being made, and the storyboard filling in as the
// server saves each finished take.
import assert from "node:assert/strict";
import { test } from "node:test";
import { audit, savedVideo, serverAndPage, TOKEN, waitUntil } from "./harness.mjs";

const t = serverAndPage({ width: 1440, height: 900 });
const PROJECT = "script-room";
const HEADERS = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

const SCRIPT = `Title: The Key

INT. KITCHEN - NIGHT

MARA opens the drawer.

MARA
(quietly)
Where is it?

EXT. YARD - DAWN

The key glints in the grass.
`;

async function api(path, init = {}) {
  const response = await fetch(`${t.server.url}/api/projects/${PROJECT}${path}`, {
    headers: HEADERS,
    ...init,
  });
  return response.json();
}

test("a script becomes a storyboard whose shots are generated with the cast's pictures", async () => {
  // A picture for the cast: the first frame of a video of the project.
  const video = await savedVideo(t.server, PROJECT, "a brass key on a table", 1);
  const picture = await api("/references", {
    method: "POST",
    body: JSON.stringify({ from_video: `${video}.mp4`, at: "first" }),
  });
  const page = t.page;
  await page.goto(`${t.server.url}/${PROJECT}`);
  await page.getByRole("button", { name: "Sequence", exact: true }).click();
  const panel = page.getByRole("region", { name: /^Sequence/ });

  // Import script: pasted into the form, made into a sequence of planned shots.
  await panel.getByRole("button", { name: "Import script" }).click();
  await panel.getByLabel("Screenplay (Fountain)").fill(SCRIPT);
  await panel.getByRole("button", { name: "Import", exact: true }).click();
  await panel.getByRole("heading", { name: "Sequence: The Key" }).waitFor();
  const labels = () => panel.locator(".strip .shot-label").allTextContents();
  await waitUntil(async () => (await labels()).length === 2);
  assert.deepEqual(await labels(), ["Scene 1: INT. KITCHEN - NIGHT", "Scene 2: EXT. YARD - DAWN"]);
  const first = panel.locator(".strip li").first();
  assert.equal(
    await first.locator(".no-poster").textContent(),
    "INT. KITCHEN - NIGHT. @Mara opens the drawer.",
  );
  assert.equal(await first.locator(".shot-caption").textContent(), "MARA: Where is it?");

  // The second shot's prompt mentions Mara, taken from the names offered as "@Ma" is typed.
  await panel.locator(".strip button", { hasText: "Scene 2" }).click();
  const prompt = panel.getByRole("combobox", { name: "Prompt" });
  await prompt.focus();
  await page.keyboard.press("Control+End");
  await page.keyboard.type(" @Ma");
  const offered = panel.getByRole("option", { name: "@Mara" });
  await offered.waitFor();
  assert.equal(await offered.getAttribute("aria-selected"), "true");
  await page.keyboard.press("Enter");
  await prompt.blur();
  const stored = async () => {
    const { sequences } = await api("/sequences");
    return api(`/sequences/${sequences[0].id}`);
  };
  await waitUntil(
    async () =>
      (await stored()).shots[1].prompt === "EXT. YARD - DAWN. The key glints in the grass. @Mara",
  );

  // The cast: Mara was added by the import; she is given the picture.
  await panel.getByRole("button", { name: "Cast" }).click();
  const mara = panel.getByRole("group", { name: "@Mara (character)" });
  const box = mara.getByRole("checkbox", { name: "Picture 1" });
  await box.click();
  await waitUntil(() => box.isChecked());
  await waitUntil(async () => {
    const { cast } = await api("/cast");
    return cast.find((m) => m.name === "Mara")?.references[0] === picture.id;
  });
  assert.deepEqual(await audit(page), []);

  // Generate all: the estimate first, then one job for each shot.
  await panel.getByRole("button", { name: "Generate all" }).click();
  const estimate = panel.getByTestId("estimate");
  await estimate.waitFor();
  assert.match(await estimate.textContent(), /^2 shots, 2 jobs, \d+ s of video/);
  // Whatever the shots show of their takes while they are made is recorded as it appears.
  await page.evaluate(() => {
    window.shotMaking = new Set();
    const strip = document.querySelector(".strip");
    new MutationObserver(() => {
      for (const line of strip.querySelectorAll(".shot-making li > span")) {
        window.shotMaking.add(line.textContent.replace(/\d+%$/, "N%"));
      }
    }).observe(strip, { subtree: true, childList: true, characterData: true });
  });
  await panel.getByRole("button", { name: "Start 2 jobs" }).click();
  await panel.getByText("Started 2 jobs").waitFor();
  const { jobs } = await api("/jobs");
  const made = jobs.filter(
    (j) => j.prompt.startsWith("INT. KITCHEN") || j.prompt.startsWith("EXT. YARD"),
  );
  assert.equal(made.length, 2);
  for (const job of made) {
    assert.deepEqual(job.inputs, [{ reference: picture.id, role: "reference", cast: "Mara" }]);
  }

  // Each shot shows its take being made; done, the take is saved by the server and joins
  // its shot, and the storyboard fills in without a save by hand.
  await waitUntil(async () => (await panel.locator(".strip img").count()) === 2, {
    timeout: 120_000,
  });
  const shown = await page.evaluate(() => [...window.shotMaking]);
  assert.ok(
    shown.some((line) => line === "Take queued" || line.startsWith("Making take")),
    `the shots showed their takes being made: ${JSON.stringify(shown)}`,
  );
  assert.equal(await panel.locator(".shot-making").count(), 0, "nothing is left being made");
  const sequence = await stored();
  assert.ok(sequence.shots.every((s) => s.take !== null && s.takes.length === 1));
  // Behind the editor, the job list has nothing left to save.
  await page.keyboard.press("Escape");
  await panel.waitFor({ state: "detached" });
  await page.locator("li[data-job-id]").first().waitFor();
  assert.equal(await page.getByRole("button", { name: "Save to Library" }).count(), 0);
  assert.deepEqual(await audit(page), []);
});

test("the dashboard's prompt offers the cast's names as a mention is typed", async () => {
  const project = "cast-room";
  for (const name of ["Élodie", "Mara", "Max"]) {
    const response = await fetch(`${t.server.url}/api/projects/${project}/cast`, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify({ name, kind: "character", references: [] }),
    });
    assert.equal(response.status, 201);
  }
  const page = t.page;
  await page.goto(`${t.server.url}/${project}`);
  const prompt = page.getByRole("combobox", { name: "Prompt" });
  const names = page.getByRole("listbox", { name: "Cast" }).getByRole("option");
  await prompt.focus();
  await page.keyboard.type("Close on @é");
  // Case aside, in any script: "é" finds Élodie.
  const elodie = names.filter({ hasText: "@Élodie" });
  await elodie.waitFor();
  assert.equal(await prompt.getAttribute("aria-expanded"), "true");
  assert.deepEqual(await audit(page), []);
  await page.keyboard.press("Enter");
  assert.equal(await prompt.inputValue(), "Close on @Élodie ");
  // Two names fit "@ma": the arrow keys move through them, Escape closes the list.
  await page.keyboard.type("and @MA");
  await names.filter({ hasText: "@Max" }).waitFor();
  assert.deepEqual(await names.allTextContents(), ["@Mara", "@Max"]);
  await page.keyboard.press("ArrowDown");
  assert.equal(await names.filter({ hasText: "@Max" }).getAttribute("aria-selected"), "true");
  await page.keyboard.press("Tab");
  assert.equal(await prompt.inputValue(), "Close on @Élodie and @Max ");
  await page.keyboard.type("@zz");
  await waitUntil(async () => (await prompt.getAttribute("aria-expanded")) === "false");
  assert.equal(await names.count(), 0, "no name fits: nothing is offered");
});
