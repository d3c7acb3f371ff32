// The landing page in a real browser: the weekly question sign-up (with and without script)
// and the way from the dated hardware table to the full spec table.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, existsSync } from "node:fs";
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

function mailsTo(address) {
  const dir = join(server.dir, "mail");
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => readFileSync(join(dir, f), "utf8").includes(address));
}

test("the home page's weekly sign-up sends a confirmation link, in place", async () => {
  const page = await browser.newPage();
  await page.goto(server.url + "/");
  await page.fill("#weekly-email", "not-an-address");
  // The browser's own check stops a malformed address before it is sent.
  assert.equal(await page.locator("#weekly-email").evaluate((i) => i.checkValidity()), false);
  const email = "weekly-" + Date.now() + "@example.com";
  await page.fill("#weekly-email", email);
  await page.click("form[data-subscribe] button[type=submit]");
  await page.waitForFunction(() => /confirmation link/.test(document.querySelector("[data-subscribe-status]").textContent));
  assert.equal(page.url(), server.url + "/", "no navigation: the answer shows beside the form");
  for (let i = 0; i < 50 && mailsTo(email).length === 0; ++i) await new Promise((r) => setTimeout(r, 100));
  assert.equal(mailsTo(email).length, 1, "one confirmation mail queued for the address");
  await page.close();
});

test("without script the sign-up opens /subscribe with the address filled in", async () => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(server.url + "/");
  await page.fill("#weekly-email", "nojs@example.com");
  await Promise.all([page.waitForNavigation(), page.click("form[data-subscribe] button[type=submit]")]);
  assert.match(page.url(), /\/subscribe\?email=nojs%40example\.com$/);
  assert.equal(await page.inputValue("#email"), "nojs@example.com");
  await context.close();
});

test("the dated hardware table links to the full spec table, one row per chip", async () => {
  const page = await browser.newPage();
  await page.goto(server.url + "/");
  const homeRows = await page.locator("#hw-h ~ table tbody tr").count();
  const stated = Number((await page.locator("ul.facts li", { hasText: "accelerators" }).textContent()).match(/\d+/)[0]);
  assert.equal(homeRows, stated, "the count in the facts line is the table's");
  await Promise.all([page.waitForNavigation(), page.click('a[href="/hardware"] >> nth=0')]);
  assert.equal(await page.locator("table.specs").first().locator("tbody tr").count(), stated);
  // Each chip row cites its source and its date: in words, with the ISO date in <time datetime>.
  const dated = await page.locator("table.specs").first().locator("tbody tr").evaluateAll((rows) =>
    rows.filter((r) => {
      const t = r.lastElementChild.querySelector("time");
      return t && /^\d{4}-\d{2}-\d{2}$/.test(t.getAttribute("datetime")) &&
        /^\d{1,2} (January|February|March|April|May|June|July|August|September|October|November|December) \d{4}$/.test(t.textContent);
    }).length);
  assert.equal(dated, stated);
  await page.close();
});

test("each track names its companies and weights that add up", async () => {
  const page = await browser.newPage();
  await page.goto(server.url + "/");
  const tracks = await page.locator(".tracks .card").evaluateAll((cards) => cards.map((c) => ({
    shares: [...c.querySelectorAll(".w-share")].map((s) => Number(s.textContent.replace("%", ""))),
    companies: c.querySelectorAll(".companies-list a").length,
  })));
  assert.equal(tracks.length, 4);
  for (const t of tracks) {
    const sum = t.shares.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - 100) <= t.shares.length, `rounded shares add up to 100 (${sum})`);
    assert.ok(t.companies > 0, "a track names the companies that run it");
  }
  await page.close();
});
