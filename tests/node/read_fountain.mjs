// What fountain-js, a Fountain parser nobody here wrote, reads of a screenplay: its title, its
// scene headings, its dialogue blocks (the cue without its extension or dual mark, the spoken
// lines without parentheticals) and the characters who speak. Printed as JSON for the server's
// import tests (server-stub/tests/storyboard.rs).
import { readFileSync } from "node:fs";
import { Fountain } from "fountain-js";

const { title, tokens } = new Fountain().parse(readFileSync(process.argv[2], "utf8"), true);
const cue = (text) =>
  text
    .replace(/\^\s*$/, "")
    .replace(/\(.*\)\s*$/, "")
    .replace(/^@/, "")
    .trim();
const scenes = [];
const dialogue = [];
let block = null;
for (const token of tokens) {
  if (token.type === "scene_heading") scenes.push(token.text);
  if (token.type === "character") {
    block = { character: cue(token.text), lines: [] };
    dialogue.push(block);
  }
  if (token.type === "dialogue" && block) block.lines.push(...token.text.split(/<br \/>|\n/));
  if (token.type === "dialogue_end") block = null;
}
const characters = [...new Set(dialogue.map((d) => d.character))];
process.stdout.write(JSON.stringify({ title: title ?? null, scenes, dialogue, characters }));
