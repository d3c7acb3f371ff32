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
  assert.match(seen, /^1 of \d+$/, "seen, with the topic's question count");
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

// Issue 33: the widgets added since (the home widget's paste and upload, Work it, the mock
// loops, the printable course, the hardware tables, each kind of drill) at 375 px, opened as a
// visitor uses them: the paste box shown, a loop started, a Work it exercise open.
test("the newer widgets do not scroll sideways at 375 px", async () => {
  const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
  const { page } = await signUp(context, "narrow");
  const wide = [];
  const measure = async (label) => {
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    if (width > 375) wide.push(`${label}: ${width}px`);
  };
  await page.goto(server.url + "/");
  await page.click("details.config-upload > summary");
  await page.fill("#fit-config", JSON.stringify({ hidden_size: 8192, num_hidden_layers: 80, num_attention_heads: 64 }));
  await measure("/ (config.json pasted)");
  const drills = ["kv-per-token", "max-sequences", "decode-tps", "allreduce", "coalescing-sectors", "bank-conflicts",
                  "occupancy", "zero-state", "bubble"];
  for (const path of ["/hardware", "/courses/kernels/print", "/q/kv-cache-and-paged-attention/work", "/rehearse?company=anthropic",
                      "/drill", ...drills.map((t) => "/drill?template=" + t)]) {
    await page.goto(server.url + path);
    await measure(path);
  }
  await page.goto(server.url + "/rehearse?company=anthropic");
  await Promise.all([page.waitForNavigation(), page.click("#start-rehearsal")]);
  assert.match(page.url(), /\/rehearsals\/\d+$/);
  await measure("/rehearsals/ID");
  assert.deepEqual(wide, []);
  await context.close();
});

// ---- issue 20: lists, search, practice and fixes, as a candidate uses them ----

async function signUp(context, prefix) {
  const page = await context.newPage();
  await page.goto(server.url + "/signup");
  const email = prefix + "-" + Date.now() + "-" + Math.floor(Math.random() * 1e6) + "@example.com";
  await page.fill("#email", email);
  await page.fill("#password", "correct horse battery");
  await Promise.all([page.waitForNavigation(), page.click("form.calc button[type=submit]")]);
  return { page, email };
}

// Grades and bookmarks through the same API the question page's buttons use.
async function api(page, path, body) {
  return page.evaluate(async ([p, b]) => {
    const me = await (await fetch("/api/me")).json();
    const r = await fetch(p, { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": me.csrf_token }, body: JSON.stringify(b) });
    return { status: r.status, body: await r.json() };
  }, [path, body]);
}

test("a signed-in list marks each question's state and bookmark, and filters by them and by company", async () => {
  const context = await browser.newContext();
  const { page } = await signUp(context, "lists");
  await page.goto(server.url + "/topics/kernels");
  const slugs = await page.locator("ol.questions > li[data-slug][data-free='1']").evaluateAll((lis) => lis.map((li) => li.dataset.slug));
  assert.ok(slugs.length >= 2, "two free kernels questions");
  assert.equal((await api(page, "/api/reviews", { slug: slugs[0], grade: 3 })).status, 200);
  assert.equal((await api(page, "/api/bookmarks", { slug: slugs[1], on: true })).status, 200);
  await page.reload();
  await page.waitForSelector("form[data-filter-list][data-states-ready]");
  assert.equal(await page.locator(`li[data-slug="${slugs[0]}"] [data-state-tag]`).textContent(), "seen");
  assert.equal(await page.locator(`li[data-slug="${slugs[1]}"] [data-state-tag]`).textContent(), "new");
  assert.equal(await page.locator(`li[data-slug="${slugs[1]}"] [data-bookmark-tag]`).count(), 1);
  assert.match(await page.locator("#state-legend").textContent(), /Mastered: 21 days of stability or more/);
  const total = await page.locator("ol.questions > li[data-slug]").count();
  await page.selectOption('form[data-filter-list] select[name="state"]', "seen");
  await page.waitForFunction(() => document.querySelector("[data-filter-count]").textContent.startsWith("1 of"));
  assert.deepEqual(await page.locator("ol.questions > li[data-slug]:not([hidden])").evaluateAll((l) => l.map((li) => li.dataset.slug)), [slugs[0]]);
  await page.selectOption('form[data-filter-list] select[name="state"]', "");
  await page.check('form[data-filter-list] input[name="bookmarked"]');
  await page.waitForFunction(() => document.querySelector("[data-filter-count]").textContent.startsWith("1 of"));
  assert.deepEqual(await page.locator("ol.questions > li[data-slug]:not([hidden])").evaluateAll((l) => l.map((li) => li.dataset.slug)), [slugs[1]]);
  await page.uncheck('form[data-filter-list] input[name="bookmarked"]');
  // Company: the first company that names a question here keeps exactly its questions.
  const company = await page.locator('form[data-filter-list] select[name="company"] option:not([value=""])').first().getAttribute("value");
  const tagged = await page.locator("ol.questions > li[data-slug]").evaluateAll((lis, c) =>
    lis.filter((li) => li.dataset.companies.split(" ").includes(c)).length, company);
  await page.selectOption('form[data-filter-list] select[name="company"]', company);
  await page.waitForFunction(([n, t]) => document.querySelector("[data-filter-count]").textContent === `${n} of ${t} shown`, [tagged, total]);
  await context.close();
});

test("signed out, the list has no state filter and every question counts as shown", async () => {
  const page = await browser.newPage();
  await page.goto(server.url + "/tracks/serving");
  await page.waitForSelector("form[data-filter-list]");
  assert.equal(await page.locator("[data-signed-in]").first().isVisible(), false);
  const total = await page.locator("ol.questions > li[data-slug]").count();
  assert.match(await page.locator("[data-filter-count]").textContent(), new RegExp(`^${total} of ${total} shown`));
  await page.close();
});

// The fixed queries: for each, the pages a reader would take as the right first answer (the
// page that defines the term, or the answer about exactly it).
const kFixedQueries = [
  ["NCCL_ALGO", ["/concepts/nccl", "/q/nccl-algorithms-ring-tree-nvls"]],
  ["zero-3", ["/concepts/zero-fsdp", "/q/zero-stage-per-model-size-on-one-node"]],
  ["MIG", ["/concepts/mig"]],
  ["kv cache", ["/concepts/kv-cache"]],
];

test("search: the fixed queries have their expected top results, and none finds what it should not", async () => {
  const page = await browser.newPage();
  for (const [query, tops] of kFixedQueries) {
    await page.goto(server.url + "/search?q=" + encodeURIComponent(query));
    const hrefs = await page.locator("ol.results li > a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
    assert.ok(tops.includes(hrefs[0]), `${query}: top ${hrefs[0]}, expected one of ${tops.join(", ")}; first five ${hrefs.slice(0, 5).join(", ")}`);
  }
  // "MIG" is a word, not the start of "migration"; "zero-3" is not temperature zero.
  await page.goto(server.url + "/search?q=MIG");
  const marks = await page.locator("ol.results li mark").allTextContents();
  assert.ok(marks.length > 0 && marks.every((m) => m.toLowerCase() === "mig"), marks.join(", "));
  await page.goto(server.url + "/search?q=zero-3");
  const titles = await page.locator("ol.results li > a").allTextContents();
  assert.ok(titles.length > 0 && titles.every((t) => !/temperature/i.test(t)), titles.join(" | "));
  await page.close();
});

test("search pages through every result with a true count", async () => {
  const page = await browser.newPage();
  const first = server.url + "/search?q=kv+cache";
  await page.goto(first);
  const total = Number((await page.locator("#result-count").textContent()).match(/^(\d+) results/)[1]);
  assert.ok(total > 40, "more than two pages (" + total + ")");
  const seen = new Set();
  let pages = 0;
  for (let url = first; url; pages += 1) {
    await page.goto(url);
    const count = await page.locator("#result-count").textContent();
    assert.doesNotMatch(count, /time budget/, "the query finished within its budget");
    const hrefs = await page.locator("ol.results li > a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
    assert.ok(hrefs.length > 0 && hrefs.length <= 20, url + ": " + hrefs.length + " results");
    hrefs.forEach((h) => { assert.ok(!seen.has(h), "no result on two pages: " + h); seen.add(h); });
    const next = page.locator('nav.paging a[rel="next"]');
    url = (await next.count()) ? new URL(await next.getAttribute("href"), server.url).href : null;
  }
  assert.equal(seen.size, total, "the pages hold exactly the count shown");
  assert.equal(pages, Math.ceil(total / 20));
  await page.close();
});

test("the search box suggests as you type: a listbox, arrows and Enter", async () => {
  const page = await browser.newPage();
  await page.goto(server.url + "/topics");
  const box = page.locator("#nav-q");
  assert.equal(await box.getAttribute("role"), "combobox");
  await box.pressSequentially("kv cach", { delay: 30 });  // the last word, unfinished, is a prefix
  await page.waitForSelector("#nav-suggest:not([hidden]) [role=option]");
  assert.equal(await box.getAttribute("aria-expanded"), "true");
  assert.equal(await box.getAttribute("aria-controls"), "nav-suggest");
  assert.equal(await page.locator("#nav-suggest").getAttribute("role"), "listbox");
  await box.press("ArrowDown");
  const first = page.locator("#nav-suggest [role=option]").first();
  assert.equal(await first.getAttribute("aria-selected"), "true");
  assert.equal(await box.getAttribute("aria-activedescendant"), await first.getAttribute("id"));
  await box.press("ArrowDown");
  await box.press("ArrowUp");
  assert.equal(await first.getAttribute("aria-selected"), "true");
  const href = await first.getAttribute("data-href");
  await Promise.all([page.waitForNavigation(), box.press("Enter")]);
  assert.equal(new URL(page.url()).pathname, href);
  // Escape closes the list; Enter with nothing chosen searches as before.
  await page.locator("#nav-q").pressSequentially("zero-3", { delay: 30 });
  await page.waitForSelector("#nav-suggest:not([hidden])");
  await page.locator("#nav-q").press("Escape");
  assert.equal(await page.locator("#nav-suggest").isVisible(), false);
  assert.equal(await page.locator("#nav-q").getAttribute("aria-expanded"), "false");
  await Promise.all([page.waitForNavigation(), page.locator("#nav-q").press("Enter")]);
  assert.match(page.url(), /\/search\?q=zero-3/);
  await page.close();
});

test("a new card graded Again is due again after its 1-minute learning step", async () => {
  const context = await browser.newContext();
  const { page } = await signUp(context, "step");
  await page.goto(server.url + "/q/prefill-vs-decode");
  await page.waitForSelector("#practice:not([hidden])");
  await page.click('#practice [data-grade="1"]');
  await page.waitForFunction(() => /next review in 1 min/.test(document.querySelector("#practice-status").textContent));
  await page.goto(server.url + "/review");
  assert.equal(await page.locator('.review-item:not(.new-item)[data-slug="prefill-vs-decode"]').count(), 0, "not due yet");
  await new Promise((resolve) => setTimeout(resolve, 61000));
  await page.goto(server.url + "/review");
  assert.equal(await page.locator('.review-item:not(.new-item)[data-slug="prefill-vs-decode"]').count(), 1, "due after a minute");
  await context.close();
});

test("the readiness check stays within its track and refuses a second submission", async () => {
  const context = await browser.newContext();
  const { page } = await signUp(context, "ready");
  await page.goto(server.url + "/tracks/kernels");
  // The topics the track weighs, from its page, by name (issue 33: the check names topics, not ids).
  const allowed = await page.locator('main ul a[href^="/topics/"]').evaluateAll((as) => as.map((a) => a.textContent.trim()));
  assert.ok(allowed.length > 0);
  await page.goto(server.url + "/readiness");
  await page.selectOption("#track", "kernels");
  await Promise.all([page.waitForNavigation(), page.click("form.calc button[type=submit]")]);
  await page.waitForFunction(() => /left$/.test(document.querySelector("#countdown").textContent));
  const tags = await page.locator("form section.card h2 .tag").allTextContents();
  assert.equal(tags.length, 10);
  for (const t of tags) assert.ok(allowed.includes(t), `${t} is a topic of the kernels track (${allowed.join(", ")})`);
  const form = await page.locator('form input[name="payload"]').evaluate((i) => new URLSearchParams(new FormData(i.form)).toString());
  await Promise.all([page.waitForNavigation(), page.click('form button[type=submit]:has-text("Finish")')]);
  assert.match(await page.locator("#readiness-score").textContent(), /%$/);
  // The score by topic names only the track's topics; each drill shows its worked chain.
  const scored = await page.locator("#readiness-topics tbody tr td:first-child").allTextContents();
  assert.ok(scored.length > 0 && scored.every((t) => allowed.includes(t)), scored.join(", "));
  const drills = (await page.locator("section.feedback").count());
  assert.equal(drills, 5, "five drills with feedback");
  assert.equal(await page.locator("section.feedback details table.chain").count(), drills, "each with its worked chain");
  // The same check sent again (a reload, a double click) is refused and not recorded.
  const again = await page.evaluate(async (body) => {
    const r = await fetch("/readiness", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body });
    return { status: r.status, text: await r.text() };
  }, form);
  assert.equal(again.status, 409);
  assert.match(again.text, /already submitted/);
  await page.goto(server.url + "/dashboard");
  assert.equal(await page.locator("h2:has-text('Readiness checks') + ul li").count(), 1);
  await context.close();
});

test("the nav says Progress to a signed-in visitor before any script runs", async () => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(server.url + "/signup");
  await page.fill("#email", "nav-" + Date.now() + "@example.com");
  await page.fill("#password", "correct horse battery");
  await Promise.all([page.waitForNavigation(), page.click("form.calc button[type=submit]")]);
  for (const path of ["/", "/topics/kernels", "/q/prefill-vs-decode", "/drill", "/concepts"]) {
    await page.goto(server.url + path);
    assert.equal(await page.locator("#nav-account").textContent(), "Progress", path);
    assert.equal(await page.locator("#nav-account").getAttribute("href"), "/dashboard", path);
  }
  await context.close();
  const anonymous = await browser.newPage();
  await anonymous.goto(server.url + "/");
  assert.equal(await anonymous.locator("#nav-account").textContent(), "Sign in");
  await anonymous.close();
});

test("the dashboard's drill columns fit a 375 px screen", async () => {
  const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
  const { page } = await signUp(context, "narrow");
  await page.goto(server.url + "/dashboard");
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 375);
  for (const table of ["#by-track", "#by-topic"]) {
    const cut = await page.locator(table + " th, " + table + " td").evaluateAll((cells) =>
      cells.filter((c) => { const r = c.getBoundingClientRect(); return r.right > 375 || r.width < 20; }).map((c) => c.textContent));
    assert.deepEqual(cut, [], table + ": every column is on screen");
    assert.ok(await page.locator(table + " th:has-text('Drill accuracy')").isVisible());
  }
  await page.screenshot({ path: artifacts + "/dashboard-375.png", fullPage: true });
  await context.close();
});

test("the drill page picks a topic, and an answer with units is read", async () => {
  const page = await browser.newPage();
  await page.goto(server.url + "/drill");
  await page.selectOption("#drill-topic", "napkin-math");
  await Promise.all([page.waitForNavigation(), page.click("#drill-topics button")]);
  assert.match(page.url(), /topic=napkin-math/);
  assert.equal(await page.locator("#drill-topic-name").textContent(), await page.locator("#drill-topic option:checked").textContent());
  assert.match(await page.locator("#answer-hint").textContent(), /.+; within 10% counts$/);
  await page.fill("#answer", "12 parsecs");
  await Promise.all([page.waitForNavigation(), page.click("form.calc button[type=submit]:has-text('Check')")]);
  assert.match(await page.locator("p.error[role=alert]").textContent(), /unknown unit|not a number/);
  assert.equal(await page.locator("#drill-verdict").count(), 0, "an unreadable answer is not graded");
  await page.close();
});

test("password reset in the browser: the mailed link sets a new password that signs in", async () => {
  const { readdirSync, readFileSync } = await import("node:fs");
  const context = await browser.newContext();
  const { page, email } = await signUp(context, "reset");
  await context.clearCookies();
  await page.goto(server.url + "/reset");
  await page.fill("#email", email);
  await Promise.all([page.waitForNavigation(), page.click("form.calc button[type=submit]")]);
  assert.match(await page.locator("#reset-message").textContent(), /on its way/);
  // The mail lands in --mail-dir as .eml; its text part is base64.
  const mailDir = server.dir + "/mail";
  let link = null;
  for (let i = 0; i < 100 && !link; i += 1) {
    for (const f of (() => { try { return readdirSync(mailDir); } catch { return []; } })()) {
      const raw = readFileSync(mailDir + "/" + f, "utf8");
      if (!raw.includes(email)) continue;
      const text = raw.split(/\r\n\r\n/).map((part) => { try { return Buffer.from(part.replace(/\r\n/g, ""), "base64").toString("utf8"); } catch { return ""; } }).join("\n") + raw;
      const m = text.match(/https?:\/\/[^\s"<>]+\/reset\/confirm\?[^\s"<>]+/);
      if (m) link = m[0];
    }
    if (!link) await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(link, "a reset link was mailed");
  const u = new URL(link);
  await page.goto(server.url + u.pathname + u.search);
  await page.fill("#password", "a brand new passphrase");
  await Promise.all([page.waitForNavigation(), page.click("form.calc button[type=submit]")]);
  assert.match(page.url(), /\/dashboard$/);
  await context.clearCookies();
  await page.goto(server.url + "/signin");
  await page.fill("#email", email);
  await page.fill("#password", "a brand new passphrase");
  await Promise.all([page.waitForNavigation(), page.click("form.calc button[type=submit]")]);
  assert.match(page.url(), /\/dashboard$/);
  await context.close();
});

test("the calculators page shows the performance model against the published runs, as `ridge validate` computes it", async () => {
  const { execFileSync } = await import("node:child_process");
  // The same default data directory as the server's.
  const expected = JSON.parse(execFileSync(process.env.RIDGE_BIN, ["validate", "--json"]).toString());
  const html = await (await fetch(server.url + "/calc")).text();
  assert.match(html, /The performance model against published runs/);
  assert.ok(expected.runs.length >= 20, `${expected.runs.length} runs`);
  for (const run of expected.runs) assert.ok(html.includes(`<th scope="row">${run.id}</th>`), `row ${run.id} missing`);
  // The ledger (issue 31 item 5): each regime's row carries the JSON's held-out and all figures,
  // mean / median / p90 / worst in percent to one decimal.
  const cell = (s) => s.n === 0 ? "no runs"
    : [s.mean_abs_error, s.median_abs_error, s.p90_abs_error, s.worst_abs_error].map((x) => (x * 100).toFixed(1)).join(" / ") +
      `% (${s.n} ${s.n === 1 ? "run" : "runs"})`;
  assert.ok(expected.ledger.length >= 9, `${expected.ledger.length} ledger lines`);
  for (const line of expected.ledger) {
    const name = line.group + (line.regime === "" ? ", every regime" : " " + line.regime);
    const row = html.indexOf(name + (line.regime === "" ? "</th>" : "</a></th>"));
    assert.ok(row > 0, `${name} has no row`);
    const figures = `<td>${cell(line["held-out"])}</td><td>${cell(line.all)}</td>`;
    assert.equal(html.substr(html.indexOf("<td>", row), figures.length), figures, name);
  }
  // Readable at 375 px: the tables scroll in their own boxes, the page does not.
  const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
  const page = await context.newPage();
  await page.goto(server.url + "/calc");
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, document.querySelector("#val-ledger caption") !== null]);
  assert.ok(widths[0] <= 375, `the page is ${widths[0]} px wide at 375`);
  assert.ok(widths[1], "the ledger table has a caption");
  await context.close();
});
