// The site in a real browser: Debian's chromium driven by playwright-core.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { startServer, chromiumOptions } from "./server.js";

const artifacts = process.env.RIDGE_ARTIFACTS || "e2e-artifacts";
let server, browser;

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  server = await startServer();
  browser = await chromium.launch(chromiumOptions);
});

after(async () => {
  await browser?.close();
  const result = await server?.stop();
  assert.equal(result.code, 0, "the server exits 0 on SIGTERM");
});

test("the home widget updates when an input changes", async () => {
  const page = await browser.newPage();
  await page.goto(server.url + "/");
  const perSequence = page.locator('.kpi [data-result="kv_bytes_per_sequence"]');
  assert.equal(await perSequence.textContent(), "10.7 GB");
  await page.waitForSelector("form[data-live][data-ready]");
  await page.fill("#fit-context", "65536");
  await page.waitForFunction(() =>
    document.querySelector('.kpi [data-result="kv_bytes_per_sequence"]').textContent === "21.5 GB");
  assert.equal(await page.locator('.kpi [data-result="max_sequences"]').textContent(), "20");
  // The chain under the widget was redrawn from the API too.
  assert.match(await page.locator("#fit-out").textContent(), /327,680 B × 65,536/);
  await page.close();
});

test("a config.json pasted or uploaded sizes a model the catalog does not name", async () => {
  const page = await browser.newPage();
  await page.goto(server.url + "/");
  await page.waitForSelector("form[data-live][data-ready]");
  // Llama 3.1 8B's own config.json: 32 layers, 8 KV heads of 128, so 131,072 B of KV per token
  // in bf16 (2 × 32 × 8 × 128 × 2), which the engine shows as it shows any figure.
  const expected = await (await fetch(server.url + "/api/calc/fit?model=llama-3.1-8b&gpu=h100-sxm&gpus=1&context=8192")).json();
  await page.fill("#fit-gpus", "1");
  await page.fill("#fit-context", "8192");
  await page.click("details.config-upload > summary");
  await page.setInputFiles("#fit-config-file", new URL("../../data/models/llama-3.1-8b.json", import.meta.url).pathname);
  await page.waitForFunction((want) =>
    document.querySelector('.kpi [data-result="kv_bytes_per_token"]').textContent === want, expected.display.kv_bytes_per_token);
  assert.equal(await page.locator('.kpi [data-result="max_sequences"]').textContent(), expected.display.max_sequences);
  // A broken paste is an error beside the form, not a stale result.
  await page.fill("#fit-config", "{ not json");
  await page.waitForFunction(() => /not valid JSON/.test(document.querySelector("form[data-live] .error[data-for='_form']").textContent));
  await page.close();
});

test("a question reveals its answer", async () => {
  const page = await browser.newPage();
  await page.goto(server.url + "/q/prefill-vs-decode");
  const tldr = page.locator(".tldr");
  assert.equal(await tldr.isVisible(), false, "the answer starts hidden");
  await page.click("details.reveal > summary");
  assert.equal(await tldr.isVisible(), true);
  assert.match(await page.locator("details.reveal").textContent(), /Decode step floor/);
  await page.close();
});

test("a calculator works with JavaScript", async () => {
  const page = await browser.newPage();
  await page.goto(server.url + "/calc/roofline");
  await page.waitForSelector("form[data-live][data-ready]");
  await page.selectOption("#c-gpu", "b200");
  await page.waitForFunction(() => document.querySelector("#calc-out").textContent.includes("b200"));
  assert.match(page.url(), /gpu=b200/, "the URL follows the form, so the result can be shared");
  await page.fill("#c-flops", "abc");
  await page.waitForFunction(() => document.querySelector('.error[data-for="flops"]').textContent.includes("not a number"));
  await page.close();
});

test("a calculator works without JavaScript", async () => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(server.url + "/calc/fit");
  await page.fill("#c-context", "65536");
  await page.selectOption("#c-kv-dtype", "fp8");
  await Promise.all([page.waitForNavigation(), page.click("form.calc button[type=submit]")]);
  assert.match(page.url(), /context=65536/);
  assert.match(await page.locator("#calc-out").textContent(), /Max sequences/);
  // A bad value comes back with its message next to the field.
  await page.goto(server.url + "/calc/fit?model=llama-3.1-70b&gpu=h100-sxm&context=-4");
  assert.match(await page.locator('.error[data-for="context"]').textContent(), /out of range/);
  await context.close();
});

test("search finds a question", async () => {
  const page = await browser.newPage();
  await page.goto(server.url + "/");
  await page.fill("#nav-q", "prefill decode");
  await Promise.all([page.waitForNavigation(), page.press("#nav-q", "Enter")]);
  const first = page.locator("ol.results li a").first();
  assert.ok(await first.count() > 0, "at least one result");
  const hrefs = await page.locator("ol.results li a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
  assert.ok(hrefs.includes("/q/prefill-vs-decode"), hrefs.join(", "));
  await page.close();
});

test("375 px screenshots of the home page and a question", async () => {
  const context = await browser.newContext({ viewport: { width: 375, height: 812 } });
  const page = await context.newPage();
  await page.goto(server.url + "/");
  await page.screenshot({ path: artifacts + "/home-375.png", fullPage: true });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 375, "no horizontal scroll at 375 px (scrollWidth " + width + ")");
  await page.goto(server.url + "/q/memory-to-run-llama-3-1-70b");
  await page.click("details.reveal > summary");
  const qwidth = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(qwidth <= 375, "no horizontal scroll on a question at 375 px (scrollWidth " + qwidth + ")");
  await page.screenshot({ path: artifacts + "/question-375.png", fullPage: true });
  await context.close();
});

test("every diagram kind renders, with a screenshot of each", async () => {
  const page = await browser.newPage({ viewport: { width: 900, height: 1000 } });
  await page.goto(server.url + "/diagrams");
  for (const kind of ["roofline", "pipeline", "ring", "kv-blocks", "memory", "checkpoint", "step-waterfall"]) {
    const svg = page.locator("#diagram-" + kind + " svg");
    assert.equal(await svg.count(), 1, kind);
    const box = await svg.boundingBox();
    assert.ok(box.width > 200 && box.height > 100, kind + " has a size");
    await svg.screenshot({ path: artifacts + "/diagram-" + kind + ".png" });
  }
  await page.close();
});

test("a calculator's diagram follows its inputs", async () => {
  const page = await browser.newPage();
  await page.goto(server.url + "/calc/checkpoint");
  await page.waitForSelector("form[data-live][data-ready]");
  const img = page.locator("#calc-diagram");
  assert.ok(await img.evaluate((i) => i.complete && i.naturalWidth > 0), "the SVG loads as an image");
  await page.fill("#c-mtbf-hours", "12");
  await page.waitForFunction(() => document.querySelector("#calc-diagram").src.includes("mtbf-hours=12"));
  await page.waitForFunction(() => document.querySelector("#calc-diagram").complete);
  assert.ok(await img.evaluate((i) => i.naturalWidth > 0));
  await page.close();
});

test("sign up, grade a question, see it on the review page and the dashboard, take a drill", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.url + "/signup");
  const email = "e2e-" + Date.now() + "@example.com";
  await page.fill("#email", email);
  await page.fill("#password", "correct horse battery");
  await Promise.all([page.waitForNavigation(), page.click("form.calc button[type=submit]")]);
  assert.match(page.url(), /\/dashboard$/);
  // A paid question shows its price until the account has access; an operator grants it.
  await page.goto(server.url + "/q/llama-70b-64-users-32k-8xh100");
  assert.equal(await page.locator("#paywall").count(), 1);
  execFileSync(process.env.RIDGE_BIN, ["grant", email, "--db", server.db]);
  // With access, Good on a new card takes its 10-minute learning step.
  await page.goto(server.url + "/q/llama-70b-64-users-32k-8xh100");
  await page.waitForSelector("#practice:not([hidden])");
  await page.click('#practice [data-grade="3"]');
  await page.waitForFunction(() => /next review in 10 min/.test(document.querySelector("#practice-status").textContent));
  await page.click("#bookmark");
  await page.waitForFunction(() => document.querySelector("#bookmark").textContent === "Remove bookmark");
  // The dashboard counts it under its topic and lists the bookmark.
  await page.goto(server.url + "/dashboard");
  const seen = await page.locator('tr[data-topic="napkin-math"] td').nth(1).textContent();
  assert.equal(seen, "1");
  assert.ok(await page.locator('a[href="/q/llama-70b-64-users-32k-8xh100"]').count() >= 1, "the bookmark is listed");
  // Nothing is due yet; the review page lists it as coming up in 10 minutes.
  await page.goto(server.url + "/review");
  assert.equal(await page.locator("#nothing-due").count(), 1);
  assert.match(await page.locator('#upcoming li[data-slug="llama-70b-64-users-32k-8xh100"]').textContent(), /in 10 min/);
  // A drill, answered with the engine's own number, is right and counted.
  await page.goto(server.url + "/drill?seed=3");
  const prompt = await page.locator("#drill-prompt").textContent();
  assert.ok(prompt.length > 20);
  await page.fill("#answer", "1");
  await Promise.all([page.waitForNavigation(), page.click("form.calc button[type=submit]")]);
  assert.equal(await page.locator("#drill-verdict").count(), 1);
  await page.goto(server.url + "/dashboard");
  const drills = await page.locator("#by-topic tbody tr").evaluateAll((rows) =>
    rows.reduce((n, r) => n + Number(r.children[4].textContent.replace("none", "0")), 0));
  assert.equal(drills, 1);
  await context.close();
});

test("a company page lists its sources and the companies table its confidence", async () => {
  const page = await browser.newPage();
  await page.goto(server.url + "/companies");
  assert.ok(await page.locator("table.companies tbody tr").count() >= 41);
  await page.goto(server.url + "/companies/anthropic");
  const sources = page.locator("ol.sources li");
  assert.ok(await sources.count() > 0);
  const href = await sources.first().locator("a").getAttribute("href");
  assert.match(href, /^https?:\/\//);
  assert.match(await page.locator("article").textContent(), /confidence/);
  await page.close();
});

test("a course resumes where the user left it", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.url + "/signup");
  await page.fill("#email", "course-" + Date.now() + "@example.com");
  await page.fill("#password", "correct horse battery");
  await Promise.all([page.waitForNavigation(), page.click("form.calc button[type=submit]")]);
  await page.goto(server.url + "/courses/serving");
  const firstModule = await page.locator("li.module h2").first().textContent();
  assert.match(await page.locator("#resume").textContent(), new RegExp("Resume at " + firstModule.split(" ")[0]));
  // Review every question of the first module, as the question pages' buttons would.
  const slugs = await page.locator("li.module").first().locator("ol.questions a").evaluateAll((as) =>
    as.map((a) => a.getAttribute("href").replace("/q/", "")));
  const done = await page.evaluate(async (list) => {
    const me = await (await fetch("/api/me")).json();
    let ok = 0;
    for (const slug of list) {
      const r = await fetch("/api/reviews", { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": me.csrf_token },
                                              body: JSON.stringify({ slug, grade: 4 }) });
      ok += r.ok ? 1 : 0;
    }
    return ok;
  }, slugs);
  assert.equal(done, slugs.length);
  await page.reload();
  const second = (await page.locator("li.module h2").nth(1).textContent()).split(" ")[0];
  assert.match(await page.locator("#resume").textContent(), new RegExp("Resume at " + second));
  assert.match(await page.locator("#course-progress").textContent(), /^1 of \d+ modules done/);
  await context.close();
});

test("a list filter hides the questions that do not match", async () => {
  const page = await browser.newPage();
  await page.goto(server.url + "/topics/kernels");
  await page.waitForSelector("form[data-filter-list]");
  const total = await page.locator("ol.questions > li[data-slug]").count();
  const easy = await page.locator('ol.questions > li[data-difficulty="easy"]').count();
  assert.ok(easy > 0 && easy < total);
  await page.selectOption('form[data-filter-list] select[name="difficulty"]', "easy");
  await page.waitForFunction((n) => document.querySelectorAll("ol.questions > li[data-slug]:not([hidden])").length === n, easy);
  assert.match(await page.locator("[data-filter-count]").textContent(), new RegExp(`^${easy} of ${total} shown`));
  await page.close();
});

test("no page scrolls sideways at 375 px", async () => {
  const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  const wide = [];
  for (const path of ["/", "/q/flashattention-traffic", "/q/plan-400b-dense-on-10t-tokens", "/search?q=kv+cache", "/companies",
                      "/companies/anthropic", "/concepts", "/concepts/kv-cache", "/courses/kernels", "/calc/fit", "/topics/kernels",
                      "/signin", "/pricing"]) {
    await page.goto(server.url + path);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    if (width > 375) wide.push(`${path}: ${width}px`);
  }
  assert.deepEqual(wide, []);
  await page.close();
});
