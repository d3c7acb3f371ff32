// Mock loops (issue 36) in a real browser: a three-round company loop (Meta's page reports
// three rounds) from the company page to the report, through the forms as a candidate uses them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { serverAndBrowser } from "./server.js";

// The server and Chromium for the whole file; the server must exit 0 on SIGTERM at the end.
const env = serverAndBrowser();

test("a three-round loop runs end to end and reports", async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  await page.goto(env.server.url + "/signup");
  await page.fill("#email", "rehearse-" + Date.now() + "@example.com");
  await page.fill("#password", "correct horse battery");
  await Promise.all([page.waitForNavigation(), page.click("form.calc button[type=submit]")]);

  await page.goto(env.server.url + "/companies/meta");
  await Promise.all([page.waitForNavigation(), page.click("#rehearse a")]);
  await Promise.all([page.waitForNavigation(), page.click("#start-rehearsal")]);
  const id = new URL(page.url()).pathname.split("/").pop();
  assert.match(id, /^\d+$/);

  // Scores per round, one level per rubric line (d, p, c, n): 4,4,4,4 then 3,3,3,3 then 2,2,3,3.
  // Sums 16, 12, 10 of 48 lines' worth: mean 38 / 12 = 3.17, no line at 1, all rounds scored:
  // below 3.25 -> not hire; at least 2.75 with no 1 -> lean hire.
  const levels = [[4, 4, 4, 4], [3, 3, 3, 3], [2, 2, 3, 3]];
  for (let round = 0; round < 3; round++) {
    assert.match(await page.locator("main, body").first().textContent(), new RegExp("Round " + (round + 1) + " of 3"));
    // The timer counts down (app.js), the prompt is there, and no follow-up shows before the answer.
    await page.waitForFunction(() => /left|time is up/.test(document.getElementById("countdown").textContent));
    assert.ok((await page.locator("#prompt").textContent()).length > 0);
    assert.equal(await page.locator(".follow-up").count(), 0);
    await page.fill("#answer", "notes for round " + (round + 1));
    await Promise.all([page.waitForNavigation(), page.click("#answer-form button[type=submit]")]);
    assert.equal(await page.inputValue("#answer"), "notes for round " + (round + 1), "the answer is kept");
    // The interviewer's ladder: one more follow-up per click, then the worked answer.
    let shown = await page.locator(".follow-up").count();
    while (await page.locator("#next-follow-up").count()) {
      assert.equal(await page.locator("#rubric").count(), 0, "the rubric waits for the last follow-up");
      await Promise.all([page.waitForNavigation(), page.click("#next-follow-up")]);
      const now = await page.locator(".follow-up").count();
      assert.equal(now, shown + 1);
      shown = now;
    }
    assert.equal(await page.locator("#worked").count(), 1);
    assert.equal(await page.locator("#rubric fieldset").count(), 4, "four rubric lines");
    assert.equal(await page.locator("#rubric input[type=radio]").count(), 16, "each with four levels described");
    const [d, p, c, n] = levels[round];
    await page.check(`#rubric input[name=d][value="${d}"]`);
    await page.check(`#rubric input[name=p][value="${p}"]`);
    await page.check(`#rubric input[name=c][value="${c}"]`);
    await page.check(`#rubric input[name=n][value="${n}"]`);
    await Promise.all([page.waitForNavigation(), page.click("#rubric button[type=submit]")]);
  }

  // The report: three rounds with their scores and time, the rule, the recommendation.
  assert.equal(await page.locator("tr.report-round").count(), 3);
  assert.equal(await page.locator("#recommendation").getAttribute("data-recommendation"), "lean hire");
  assert.match(await page.locator("#rule").textContent(), /Hire: every round scored, a mean of at least 3\.25/);
  assert.match(await page.locator("#recommendation").textContent(), /mean 3\.17 over 3 of 3 rounds/);
  // Round 3 (2,2,3,3: a mean of 2.5, under 3) goes back into reviews; rounds 1 and 2 do not.
  assert.equal(await page.locator("#review-questions li").count(), 1);

  const api = await page.evaluate(async (rid) => (await fetch("/api/rehearsals/" + rid)).json(), id);
  assert.equal(api.state, "finished");
  assert.equal(api.report.recommendation, "lean hire");
  assert.deepEqual(api.report.rounds.map((r) => r.scores["technical depth"]), [4, 3, 2]);
  const due = await page.evaluate(async () => (await fetch("/api/reviews/due?all=1")).json());
  assert.equal(due.due.length, 1, "the weak round's question is in FSRS");

  // The dashboard lists it with its line means.
  await page.goto(env.server.url + "/dashboard");
  assert.match(await page.locator("#rehearsals").textContent(), /lean hire/);
  await context.close();
});
