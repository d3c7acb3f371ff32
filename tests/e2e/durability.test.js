// Durability: every review that got a success response is still there after the server is
// killed with SIGKILL and restarted, on SQLite and on PostgreSQL (a throwaway cluster from
// tests/pg_fixture.sh).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./server.js";

const here = dirname(fileURLToPath(import.meta.url));

async function api(url, path, method, body, cookie, csrf) {
  const headers = { "Content-Type": "application/json" };
  if (cookie) headers.Cookie = cookie;
  if (csrf) headers["X-CSRF-Token"] = csrf;
  const r = await fetch(url + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  return { status: r.status, cookie: (r.headers.get("set-cookie") || "").split(";")[0], json: await r.json() };
}

async function killAndCount(db) {
  let server = await startServer({ db });
  const signup = await api(server.url, "/api/signup", "POST", { email: "kill@example.com", password: "correct horse battery" });
  assert.equal(signup.status, 201);
  const slugs = (await api(server.url, "/api/questions", "GET")).json.questions.map((q) => q.slug);
  let saved = 0;
  // Fire reviews without waiting, then SIGKILL mid-stream, once the first ten are answered (a
  // condition, not a clock: a fixed 150 ms wait saw no answer yet on PostgreSQL once, under
  // load); only answered ones count.
  let tenAnswered;
  const ten = new Promise((r) => { tenAnswered = r; });
  const pending = slugs.map((slug) =>
    api(server.url, "/api/reviews", "POST", { slug, grade: 3 }, signup.cookie, signup.json.csrf_token)
      .then((r) => { if (r.status === 200 && ++saved === 10) tenAnswered(); })
      .catch(() => {}));
  await Promise.race([ten, Promise.allSettled(pending)]);
  const answeredBeforeKill = saved;
  server.child.kill("SIGKILL");
  await Promise.allSettled(pending);
  await server.exited;
  server = await startServer({ db });
  const signin = await api(server.url, "/api/signin", "POST", { email: "kill@example.com", password: "correct horse battery" });
  assert.equal(signin.status, 200);
  const progress = (await api(server.url, "/api/progress", "GET", null, signin.cookie)).json;
  const seen = Object.values(progress.topics).reduce((n, t) => n + t.seen, 0);
  await server.stop();
  assert.ok(answeredBeforeKill < slugs.length, "the kill came mid-stream, with reviews still unanswered");
  return { saved, seen };
}

test("reviews survive SIGKILL on SQLite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ridge-kill-"));
  const { saved, seen } = await killAndCount("sqlite:" + join(dir, "ridge.db"));
  assert.ok(saved > 0, "some reviews were answered before the kill");
  assert.ok(seen >= saved, `every answered review is there: ${seen} stored, ${saved} answered`);
  rmSync(dir, { recursive: true, force: true });
});

test("reviews survive SIGKILL on PostgreSQL", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ridge-pg-"));
  const fixture = join(here, "..", "pg_fixture.sh");
  execFileSync(fixture, ["start", dir], { stdio: "ignore" });
  try {
    const url = readFileSync(join(dir, "url"), "utf8").trim();
    const { saved, seen } = await killAndCount(url);
    assert.ok(saved > 0, "some reviews were answered before the kill");
    assert.ok(seen >= saved, `every answered review is there: ${seen} stored, ${saved} answered`);
  } finally {
    execFileSync(fixture, ["stop", dir], { stdio: "ignore" });
  }
});
