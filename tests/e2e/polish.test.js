// Issue 33 as a new candidate met the site: course commands that run and drill links that go
// to their drills (item 4), a home widget that never shows a stale number (item 5), a
// readiness check that survives a refresh (item 3), and what crawlers ask for (item 10).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { startServer, chromiumOptions } from "./server.js";

let server, browser;

before(async () => {
  server = await startServer();
  browser = await chromium.launch(chromiumOptions);
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

// "ridge calc fit --model x --note 'a b'" -> ["calc", "fit", "--model", "x", "--note", "a b"]
function words(command) {
  const out = [];
  for (const m of command.matchAll(/'([^']*)'|(\S+)/g)) out.push(m[1] !== undefined ? m[1] : m[2]);
  assert.equal(out.shift(), "ridge");
  return out;
}

test("every course's calculator commands run as shown, and its drill links reach their drills", async () => {
  const index = await (await fetch(server.url + "/courses")).text();
  const courses = [...new Set([...index.matchAll(/href="\/courses\/([a-z0-9-]+)"/g)].map((m) => m[1]))];
  assert.ok(courses.length >= 4, "the four tracks' courses");
  const page = await browser.newPage();
  let commands = 0, templates = 0;
  for (const id of courses) {
    await page.goto(server.url + "/courses/" + id);
    // The answer is hidden until asked.
    const answers = page.locator(".exercise details.reveal");
    if (await answers.count() > 0) assert.equal(await answers.first().locator(".derivation, table, p").first().isVisible(), false);
    for (const command of await page.locator("code.exercise-command").allTextContents()) {
      const args = words(command);
      try {
        execFileSync(process.env.RIDGE_BIN, args, { stdio: "pipe" });
      } catch (e) {
        assert.fail(`/courses/${id}: '${command}' exited ${e.status}: ${e.stderr}`);
      }
      ++commands;
    }
    for (const href of await page.locator("a.drill-topic").evaluateAll((as) => as.map((a) => a.getAttribute("href")))) {
      assert.match(href, /^\/drill\?topic=[a-z]/, `/courses/${id}: a drills link names a topic`);
    }
    for (const a of await page.locator("a.drill-template").evaluateAll((as) => as.map((x) => [x.getAttribute("href"), x.textContent]))) {
      const r = await fetch(server.url + a[0]);
      assert.equal(r.status, 200, a[0]);
      ++templates;
    }
  }
  assert.ok(commands >= 20, `every module's command ran (${commands})`);
  assert.ok(templates >= 20, `every module's drills linked (${templates})`);
  await page.close();
});

test("the home widget clears its figures on an error and refuses an oversized upload inline", async () => {
  const page = await browser.newPage();
  let dialogs = 0;
  page.on("dialog", (d) => { ++dialogs; d.dismiss(); });
  await page.goto(server.url + "/");
  await page.waitForSelector("form[data-live][data-ready]");
  const kv = page.locator('.kpi [data-result="kv_bytes_per_token"]');
  assert.match(await kv.textContent(), /\d/, "the example's figure to start with");
  // A refused value: the error shows and no figure from the last answer stays beside it.
  await page.fill("#fit-gpus", "0");
  await page.waitForFunction(() => document.querySelector("form[data-live] [aria-invalid]") !== null);
  assert.doesNotMatch(await kv.textContent(), /\d/, "no stale figure beside an error");
  assert.equal(await page.locator("#fit-out").textContent(), "", "no stale worked chain");
  await page.fill("#fit-gpus", "8");
  await page.waitForFunction(() => /\d/.test(document.querySelector('.kpi [data-result="kv_bytes_per_token"]').textContent));
  // An upload over the body limit: the same words as the server's 413, inline, no dialog.
  const big = join(server.dir, "big-config.json");
  writeFileSync(big, JSON.stringify({ hidden_size: 8192, padding: "x".repeat(1100000) }));
  await page.click("details.config-upload > summary");
  await page.setInputFiles("#fit-config-file", big);
  await page.waitForFunction(() => /larger than 1 MiB \(1,048,576 bytes\)/.test(document.querySelector("form[data-live] .error[data-for='_form']").textContent));
  assert.equal(dialogs, 0, "no alert()");
  assert.doesNotMatch(await kv.textContent(), /\d/);
  const refused = await fetch(server.url + "/api/calc/fit", { method: "POST", headers: { "Content-Type": "application/json" },
                                                              body: JSON.stringify({ config: { padding: "x".repeat(1100000) } }) });
  assert.equal(refused.status, 413);
  assert.match(await refused.text(), /larger than 1 MiB \(1,048,576 bytes\)/, "the server says the same figure");
  await page.close();
});

test("a refresh of the readiness check shows the same check with the time left", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.url + "/signup");
  await page.fill("#email", "resume-" + Date.now() + "@example.com");
  await page.fill("#password", "correct horse battery");
  await Promise.all([page.waitForNavigation(), page.click("form.calc button[type=submit]")]);
  await page.goto(server.url + "/readiness");
  await Promise.all([page.waitForNavigation(), page.click("form.calc button[type=submit]")]);
  const payload = await page.inputValue("input[name=payload]");
  const first = await page.locator("#readiness-form input[type=text]").first();
  await first.fill("42");
  // Past a whole second, so the clock (shown to the second, rounded up) has left 15:00 for sure.
  await page.waitForTimeout(1500);
  await page.goto(server.url + "/readiness");
  assert.equal(await page.inputValue("input[name=payload]"), payload, "the same check");
  assert.equal(await page.locator("#resumed").count(), 1);
  assert.match(await page.locator("#countdown").textContent(), /^1[0-4]:\d\d left$|^9:\d\d left$/, "the clock kept running from 15:00");
  assert.equal(await page.locator("#readiness-form input[type=text]").first().inputValue(), "42", "the typed answer is kept");
  for (const tag of await page.locator(".card .tag").allTextContents()) assert.doesNotMatch(tag, /^[a-z]+(-[a-z]+)+$/, "a topic by name, not id");
  await context.close();
});

test("robots.txt, the sitemap and the favicon answer", async () => {
  const robots = await fetch(server.url + "/robots.txt");
  assert.equal(robots.status, 200);
  assert.match(await robots.text(), /Sitemap: .*\/sitemap\.xml/);
  const map = await (await fetch(server.url + "/sitemap.xml")).text();
  assert.match(map, /<loc>[^<]*\/calc\/fit<\/loc>/);
  const icon = await fetch(server.url + "/favicon.ico");
  assert.equal(icon.status, 200);
  assert.match(icon.headers.get("content-type"), /svg/);
});

test("/hardware at 1280 pixels: two tables that fit, each sortable by its headings", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(server.url + "/hardware");
  for (const id of ["#hw-specs", "#hw-peaks"]) {
    const width = await page.locator(id).evaluate((t) => t.getBoundingClientRect().width);
    assert.ok(width <= 1280, `${id} is ${width} px wide at a 1280 px window`);
  }
  const chips = await page.locator("#hw-specs tbody tr").count();
  assert.equal(await page.locator("#hw-peaks tbody tr").count(), chips, "one row per chip in each table");
  const memory = page.locator("#hw-specs thead th", { hasText: "Memory" });
  await memory.locator("button").click();
  assert.equal(await memory.getAttribute("aria-sort"), "ascending");
  const keys = await page.locator("#hw-specs tbody tr td:nth-child(3)").evaluateAll((cells) => cells.map((c) => Number(c.dataset.sort.replace(/,/g, ""))));
  for (let i = 1; i < keys.length; ++i) assert.ok(keys[i - 1] <= keys[i], "sorted by memory, smallest first");
  await memory.locator("button").click();
  assert.equal(await memory.getAttribute("aria-sort"), "descending");
  const first = await page.locator("#hw-specs tbody tr td:nth-child(3)").first().getAttribute("data-sort");
  assert.equal(Number(first.replace(/,/g, "")), Math.max(...keys), "the largest memory first");
  await page.close();
});

test("every calculator page draws what it computes with its example values: no broken image, no hidden result", async () => {
  const list = await (await fetch(server.url + "/api/calc")).json();
  const names = (list.calculators || list).map((c) => c.name);
  assert.ok(names.length >= 20, "the registry's calculators");
  const page = await browser.newPage();
  const paths = names.map((n) => "/calc/" + n);
  paths.push("/calc/pipeline-bubble?stages=4&microbatches=8&schedule=interleaved&virtual-stages=2");
  for (const path of paths) {
    await page.goto(server.url + path);
    await page.waitForLoadState("load");
    const broken = await page.locator("img").evaluateAll((imgs) => imgs.filter((i) => !i.complete || i.naturalWidth === 0).map((i) => i.src));
    assert.deepEqual(broken, [], `${path}: broken images`);
    const out = page.locator("#calc-out");
    assert.ok(await out.isVisible(), `${path}: the result is visible`);
    assert.ok((await out.textContent()).trim().length > 0, `${path}: the result is not empty`);
  }
  await page.close();
});
