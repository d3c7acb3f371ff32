// Design rounds (issue 35) in a real browser: one serving challenge worked from its common
// mistake to a passing design by following the verdict's suggestion, through the form as a
// candidate uses it; the live figures (app.js) follow the edits; the attempts are kept and the
// passing design is on the board.
import { test } from "node:test";
import assert from "node:assert/strict";
import { serverAndBrowser } from "./server.js";
import { signUp } from "./pages.js";

// The server and Chromium for the whole file; the server must exit 0 on SIGTERM at the end.
const env = serverAndBrowser();

// chat-70b-interactive's common mistake (content/challenges/chat-70b-interactive.toml): one
// TP-8 replica with a batch cap of 128, bf16 weights and KV.
const mistake = { gpu: "h100-sxm", tp: "8", replicas: "1", max_batch: "128", weights_dtype: "bf16", kv_dtype: "bf16" };

async function setField(page, name, value) {
  const selector = "#design-" + name;
  if ((await page.locator(selector).evaluate((e) => e.tagName)) === "SELECT") await page.selectOption(selector, value);
  else await page.fill(selector, value);
}

test("a serving challenge goes from its common mistake to a pass by following the suggestions", async () => {
  const context = await env.browser.newContext();
  await signUp(context, env.server.url, "design-" + Date.now() + "@example.com");
  const page = await context.newPage();

  await page.goto(env.server.url + "/design");
  await Promise.all([page.waitForNavigation(), page.click("a[href='/design/chat-70b-interactive']")]);
  // The form starts blank (the reference is not given away) and the timer runs.
  assert.equal(await page.inputValue("#design-replicas"), "");
  await page.waitForFunction(() => /^\d+:\d\d$/.test(document.querySelector("#design-timer strong").textContent));
  for (const [name, value] of Object.entries(mistake)) await setField(page, name, value);
  // The live figures follow the edits (a debounced POST to /api/design/...): the mistake fails.
  await page.waitForFunction(() => /Predicted now: FAIL/.test(document.getElementById("design-live").textContent));

  await Promise.all([page.waitForNavigation(), page.click("#design-form button[type=submit]")]);
  assert.match(await page.locator("#verdict h2").textContent(), /FAIL/);
  // Follow the suggestion until the design passes; each step changes one field. The search is
  // bounded, so a handful of steps is plenty (the mistake needs two: replicas, then KV in fp8).
  let steps = 0;
  while (/FAIL/.test(await page.locator("#verdict h2").textContent())) {
    assert.ok(steps < 6, "the suggestions reach a pass within six steps");
    const suggestion = page.locator("#suggestion");
    assert.equal(await suggestion.count(), 1, "a failing verdict suggests a change");
    const field = await suggestion.getAttribute("data-field");
    const to = await suggestion.getAttribute("data-to");
    // The form comes back with the design just graded, so only the suggested field changes.
    await setField(page, field, to);
    await Promise.all([page.waitForNavigation(), page.click("#design-form button[type=submit]")]);
    steps++;
  }
  assert.ok(steps >= 1);
  assert.match(await page.locator("#verdict h2").textContent(), /PASS/);
  assert.equal(await page.locator("#verdict tr.fail").count(), 0);
  assert.match(await page.locator(".design-version").textContent(), /design-grader\//);

  // Every graded design was kept; the passing one is on the board, anonymous (no opt-in).
  assert.equal(await page.locator("#attempts li").count(), steps + 1);
  assert.equal(await page.locator("#board tbody tr").count(), 1);
  assert.match(await page.locator("#board tbody tr").first().textContent(), /anonymous/);
  await context.close();
});
