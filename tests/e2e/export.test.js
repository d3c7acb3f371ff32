// Issue 37 in a real browser: the offline copy (`ridge export site DIR`) opened from file://
// with its links followed, and a course printed to PDF by Chromium.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { startServer, chromiumOptions } from "./server.js";

let server, browser, site;

before(async () => {
  site = mkdtempSync(join(tmpdir(), "ridge-site-"));
  execFileSync(process.env.RIDGE_BIN, ["export", "site", site], { stdio: "pipe" });
  server = await startServer();
  browser = await chromium.launch(chromiumOptions);
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (site) rmSync(site, { recursive: true, force: true });
});

test("the offline copy opens from disk and its links lead to pages on disk", async () => {
  const page = await browser.newPage();
  const failed = [];
  page.on("requestfailed", (r) => failed.push(r.url()));
  await page.goto(pathToFileURL(join(site, "index.html")).href);
  // The stylesheet applied: the header is laid out by it, not the browser's defaults.
  assert.notEqual(await page.locator("header.site .bar").evaluate((e) => getComputedStyle(e).display), "block");
  await Promise.all([page.waitForNavigation(), page.click("nav.main a[href$='topics.html']")]);
  assert.match(page.url(), /^file:\/\/.*\/topics\.html$/);
  // A topic, then its first question: each a file next to the others.
  await Promise.all([page.waitForNavigation(), page.locator("main a[href*='topics/']").first().click()]);
  assert.match(page.url(), /\/topics\/[a-z0-9-]+\.html$/);
  await Promise.all([page.waitForNavigation(), page.locator("main a[href*='q/']").first().click()]);
  assert.match(page.url(), /\/q\/[a-z0-9-]+\.html$/);
  assert.ok((await page.locator("h1").textContent()).length > 10);
  // A calculator keeps its form and its worked example, and says it needs the server.
  await page.goto(pathToFileURL(join(site, "calc", "fit.html")).href);
  assert.equal(await page.locator("form.calc").count(), 1);
  assert.match(await page.locator(".offline-note").textContent(), /needs the server/);
  if (existsSync(join(site, "calc", "fit", "diagram.svg"))) {
    assert.equal(await page.locator("img#calc-diagram").evaluate((i) => i.complete && i.naturalWidth > 0), true);
  }
  // Sign-in is the server's: the link leads to the page that says so.
  await page.goto(pathToFileURL(join(site, "index.html")).href);
  await Promise.all([page.waitForNavigation(), page.click("#nav-account")]);
  assert.match(page.url(), /\/offline\.html$/);
  assert.deepEqual(failed.filter((u) => /\.(css|js|svg|html)(\?|$)/.test(u)), [], "every file a page asked for is there");
  await page.close();
});

// Chromium's PDF: each page is one "/Type /Page" object (the tree's nodes are "/Type /Pages").
function pdfPages(buffer) {
  return (buffer.toString("latin1").match(/\/Type\s*\/Page(?![a-z])/g) || []).length;
}

test("a course prints to PDF: answers shown, nav hidden, a page per question", async () => {
  const page = await browser.newPage();
  const courses = await (await fetch(server.url + "/api/openapi.json")).json();
  assert.equal(courses.openapi, "3.1.0");
  await page.goto(server.url + "/courses/serving/print");
  const questions = await page.locator(".print-question").count();
  assert.ok(questions >= 3, "the serving course has its questions on the page");
  await page.emulateMedia({ media: "print" });
  assert.equal(await page.locator("header.site").isVisible(), false, "the nav is not printed");
  assert.ok(await page.locator(".print-question .answer").first().isVisible(), "the answer is printed");
  const pdf = await page.pdf({ format: "A4", printBackground: false });
  const pages = pdfPages(pdf);
  // A page break before every question: at least one page each, and the title page.
  assert.ok(pages >= questions + 1, `${pages} PDF pages for ${questions} questions`);
  assert.ok(pages < questions * 30, `${pages} PDF pages is not runaway`);
  // The document title Chromium writes into the PDF is the page's.
  const info = pdf.toString("latin1").match(/\/Title\s*(\((?:[^()\\]|\\.)*\)|<[0-9A-Fa-f]+>)/);
  assert.ok(info, "the PDF has a title");
  let title = info[1];
  if (title.startsWith("<")) {
    const hex = title.slice(1, -1);
    title = Buffer.from(hex.startsWith("FEFF") ? hex.slice(4) : hex, "hex").swap16().toString("utf16le");
  }
  assert.match(title, /print/);
  await page.close();
});

test("a question prints with its answer open", async () => {
  const page = await browser.newPage();
  const list = await (await fetch(server.url + "/api/questions")).json();
  const free = list.questions.find((q) => q.free);
  await page.goto(server.url + "/q/" + free.slug);
  assert.equal(await page.locator("#answer .tldr").isVisible(), false, "closed on screen");
  await page.emulateMedia({ media: "print" });
  assert.equal(await page.locator("#answer .tldr").isVisible(), true, "open in print");
  const pdf = await page.pdf({ format: "A4" });
  assert.ok(pdfPages(pdf) >= 1);
  await page.close();
});
