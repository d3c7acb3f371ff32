// Work it (issue 34) in a real browser, with JavaScript and without: from a question's page a
// candidate works its chain with new inputs, makes a named mistake on one step (the page names
// it and links its concept), then gets the remaining steps right and sees the whole chain. The
// drills page then offers a set aimed at that mistake.
//
// The right values and a wrong value that names a mistake come from `ridge work SLUG --seed N
// --answer ... --json`, the same engine and grading the server runs, for the seed the page drew:
// the test never computes a figure itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { serverAndBrowser } from "./server.js";

// A free workable question whose chain moves data over links: its steps answer to the
// unit mistakes a candidate makes with bandwidth (bits for bytes, bidirectional, GB for GiB).
const SLUG = "allreduce-bus-bandwidth";
// Candidate wrong answers, as factors of the right value: what the unit mistakes do to a
// figure (8: bits as bytes; 2: both directions; 2^30/10^9: GiB as GB; 3: 2ND for 6ND; 16/2:
// training state). The CLI says which of them, if any, names a mistake at the drawn inputs.
const FACTORS = [8, 1 / 8, 2, 1 / 2, 2 ** 30 / 1e9, 1e9 / 2 ** 30, 3, 1 / 3, 4, 1 / 4];

const env = serverAndBrowser();

function cli(seed, answers) {
  const args = ["work", SLUG, "--seed", String(seed), "--json"];
  for (const a of answers) args.push("--answer", a);
  return JSON.parse(execFileSync(process.env.RIDGE_BIN, args).toString());
}

// For the exercise `seed`: each step's right value, and a step with a wrong value that the
// engine names as a mistake (null when no factor names one at these inputs).
function plan(seed) {
  const shown = cli(seed, []);
  const names = shown.steps.map((s) => s.name);
  const values = cli(seed, names.map((n) => n + "=0")).grades.map((g) => g.value);
  const tries = [];
  names.forEach((n, i) => FACTORS.forEach((f) => tries.push(n + "=" + String(values[i] * f))));
  const graded = cli(seed, tries).grades;
  const named = graded.find((g) => !g.correct && g.misconception);
  const right = values.map(String);
  // Each right value, graded by the CLI as right (the form reads what the CLI reads).
  const check = cli(seed, names.map((n, i) => n + "=" + right[i])).grades;
  check.forEach((g) => assert.ok(g.correct, "the engine's own value is right for " + g.name));
  if (!named) return { names, right, mistake: null };
  return { names, right, mistake: { step: names.indexOf(named.name), answer: named.answer, title: named.misconception.title,
                                    concept: named.misconception.concept } };
}

async function signUp(page, email) {
  await page.goto(env.server.url + "/signup");
  await page.fill("#email", email);
  await page.fill("#password", "correct horse battery");
  await Promise.all([page.waitForNavigation(), page.click("form.calc button[type=submit]")]);
}

for (const js of [true, false]) {
  test(`a candidate works a question through a named mistake ${js ? "with" : "without"} JavaScript`, async () => {
    const context = await env.browser.newContext({ javaScriptEnabled: js });
    const page = await context.newPage();
    await signUp(page, `workit-${js ? "js" : "nojs"}-${process.pid}@example.com`);

    // The question's page links to Work it.
    await page.goto(env.server.url + "/q/" + SLUG);
    await Promise.all([page.waitForNavigation(), page.click("#work-it a")]);
    assert.equal(new URL(page.url()).pathname, "/q/" + SLUG + "/work");

    // A fresh exercise has a random seed: at most a few draws until one where a unit mistake
    // is told apart from the right value (each draw is a new GET, a new seed).
    let seed, p;
    for (let draw = 0; draw < 6; draw++) {
      seed = await page.locator("#step-0 input[name=seed]").inputValue();
      p = plan(seed);
      if (p.mistake) break;
      await page.goto(env.server.url + "/q/" + SLUG + "/work");
    }
    assert.ok(p.mistake, "a draw where a named mistake can be made");
    const steps = p.names.length;
    assert.equal(await page.locator("li.work-step").count(), steps);

    for (let i = 0; i < steps; i++) {
      const mistaken = i === p.mistake.step;
      await page.fill(`#step-${i} input[name=answer]`, mistaken ? p.mistake.answer : p.right[i]);
      await Promise.all([page.waitForNavigation(), page.click(`#step-${i} button`)]);
      const grade = await page.locator(`#step-${i} .work-grade`).textContent();
      if (mistaken) {
        assert.match(grade, /^Wrong/);
        const named = page.locator(`#step-${i} .work-misconception`);
        assert.match(await named.textContent(), new RegExp("That is the mistake " + p.mistake.title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
        assert.equal(await named.locator("a").getAttribute("href"), p.mistake.concept);
      } else {
        assert.match(grade, /^Right/, `step ${i}: ${grade}`);
        assert.equal(await page.locator(`#step-${i} .work-misconception`).count(), 0);
      }
      // A graded step keeps no form: it is graded once.
      assert.equal(await page.locator(`#step-${i} form`).count(), 0);
    }
    // The end: the whole chain for these inputs, and a way to work it again.
    assert.match(await page.locator(".work-chain h2").textContent(), /The whole chain for these inputs/);

    // The drills page offers a set aimed at the mistake just made, with this question in it.
    await page.goto(env.server.url + "/drill");
    const set = page.locator("#mistake-set");
    assert.match(await set.textContent(), new RegExp(p.mistake.title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + ", 1 time, last today"));
    assert.equal(await set.locator(`a[href="/q/${SLUG}/work"]`).count(), 1);
    await context.close();
  });
}
