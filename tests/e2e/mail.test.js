// Mail end to end against a real SMTP server on this machine (Debian's python3-aiosmtpd, run by
// /usr/bin/python3): double opt-in, the weekly question once per subscriber per ISO week under
// two concurrent `ridge mail weekly` runs, one-click unsubscribe (RFC 8058), email
// verification, password reset, and an SMTP server that is down (retried, nothing lost, pages fast).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./server.js";

const here = dirname(fileURLToPath(import.meta.url));
const SECRET = "e2e mail secret " + "z".repeat(20);
const work = mkdtempSync(join(tmpdir(), "ridge-mail-e2e-"));
let smtp, server, env;
let clientNumber = 0;

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

async function startSmtp(port, file, extra = []) {
  const child = spawn("/usr/bin/python3", [join(here, "smtp_server.py"), String(port), file, ...extra], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("smtp server did not start: " + output)), 15000);
    const onData = (d) => { output += d; if (/listening/.test(output)) { clearTimeout(timer); resolve(); } };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => reject(new Error("smtp server exited " + code + ": " + output)));
  });
  return { file, stop: () => new Promise((r) => { child.on("exit", r); child.kill("SIGTERM"); }) };
}

function mails(file, rcpt) {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((m) => !rcpt || m.rcpt === rcpt);
}

async function waitFor(fn, ms = 15000, what = "condition") {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out waiting for " + what);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// Each test client comes from its own address (the server trusts 127.0.0.1 as a proxy), so
// the per-address mail budget is per test, as it would be per visitor.
function headers(extra = {}) {
  clientNumber += 1;
  return { "X-Forwarded-For": `10.9.${clientNumber >> 8}.${clientNumber & 255}`, ...extra };
}

const linkIn = (text, path) => text.match(new RegExp(`https?://[^\\s"<>]+${path.replace(/\//g, "\\/")}\\?[^\\s"<>]+`))[0];

async function subscribe(email, url = server.url) {
  const res = await fetch(url + "/api/subscribe", { method: "POST", body: JSON.stringify({ email }),
                                                            headers: headers({ "Content-Type": "application/json" }) });
  return { status: res.status, body: await res.json() };
}

async function confirm(email, url = server.url) {
  const mail = await waitFor(() => mails(smtp.file, email).find((m) => /Confirm your subscription/.test(m.subject)), 15000, "confirmation of " + email);
  const link = linkIn(mail.text, "/subscribe/confirm");
  const page = await fetch(link);
  assert.equal(page.status, 200);
  const u = new URL(link);
  const res = await fetch(url + "/subscribe/confirm", { method: "POST", headers: headers({ "Content-Type": "application/x-www-form-urlencoded" }),
                                                               body: u.searchParams.toString() });
  assert.equal(res.status, 200);
  assert.match(await res.text(), /id="confirmed"/);
  return mail;
}

function weekly(extra = [], db = server.db) {
  return new Promise((resolve) => {
    const child = spawn(process.env.RIDGE_BIN, ["mail", "weekly", "--db", db, ...extra], { env: { ...process.env, ...env } });
    let out = "";
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { out += d; });
    child.on("exit", (code) => resolve({ code, out }));
  });
}

before(async () => {
  const smtpPort = await freePort();
  smtp = await startSmtp(smtpPort, join(work, "mail.jsonl"));
  const port = await freePort();
  env = { RIDGE_SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, RIDGE_SECRET: SECRET, RIDGE_BASE_URL: `http://127.0.0.1:${port}`,
          RIDGE_MAIL_FROM: "ridge <weekly@ridge.test>", RIDGE_MAIL_RETRY_SECONDS: "1", RIDGE_MAIL_POLL_SECONDS: "1" };
  server = await startServer({ port, env, args: ["--trusted-proxy", "127.0.0.1/32"] });
});
after(async () => {
  await server.stop();
  await smtp.stop();
  rmSync(work, { recursive: true, force: true });
});

test("subscribe: a confirmation mail with a signed link, the same answer for any address, bad input named", async () => {
  const r = await subscribe("Reader@Example.com");
  assert.equal(r.status, 202);
  const mail = await confirm("reader@example.com");
  assert.equal(mail.mail_from, "weekly@ridge.test");
  assert.match(mail.list_unsubscribe, /^<http:\/\/127\.0\.0\.1:\d+\/unsubscribe\?email=[^>]+&sig=[0-9a-f]{64}>, <mailto:weekly@ridge\.test\?subject=unsubscribe>$/);
  assert.equal(mail.list_unsubscribe_post, "List-Unsubscribe=One-Click");
  const again = await subscribe("reader@example.com");  // already confirmed: the same answer, no new mail
  assert.deepEqual(again, r);
  await new Promise((res) => setTimeout(res, 1500));
  assert.equal(mails(smtp.file, "reader@example.com").length, 1);
  const bad = await subscribe("not an address");
  assert.equal(bad.status, 400);
  assert.equal(bad.body.errors[0].field, "email");
  const form = await fetch(server.url + "/api/subscribe", { method: "POST", body: "email=x%40example.com", headers: headers({ "Content-Type": "application/x-www-form-urlencoded" }) });
  assert.equal(form.status, 415);
  // A changed link is refused.
  const link = new URL(linkIn(mail.text, "/subscribe/confirm"));
  link.searchParams.set("email", "someone-else@example.com");
  assert.equal((await fetch(link)).status, 400);
  // The form: a pre-session token, refused without it.
  const page = await fetch(server.url + "/subscribe", { headers: headers() });
  const pre = (await page.text()).match(/name="pre" value="([0-9a-f]+)"/)[1];
  const cookie = page.headers.get("set-cookie").split(";")[0];
  const posted = await fetch(server.url + "/subscribe", { method: "POST", body: `pre=${pre}&email=form%40example.com`,
                                                          headers: headers({ cookie, "Content-Type": "application/x-www-form-urlencoded" }) });
  assert.equal(posted.status, 200);
  assert.match(await posted.text(), /id="subscribe-message"/);
  const forged = await fetch(server.url + "/subscribe", { method: "POST", body: "pre=x&email=forged%40example.com",
                                                          headers: headers({ "Content-Type": "application/x-www-form-urlencoded" }) });
  assert.equal(forged.status, 403);
  await waitFor(() => mails(smtp.file, "form@example.com").length === 1, 15000, "the form's confirmation");
  assert.equal(mails(smtp.file, "forged@example.com").length, 0);
});

test("weekly: confirmed subscribers only, exactly once each under two concurrent runs, a new question next week; one-click unsubscribe", async () => {
  const confirmed = ["w1@example.com", "w2@example.com"], pending = "w-pending@example.com";
  for (const e of confirmed) { assert.equal((await subscribe(e)).status, 202); await confirm(e); }
  assert.equal((await subscribe(pending)).status, 202);
  const [a, b] = await Promise.all([weekly(), weekly()]);
  assert.equal(a.code, 0, a.out);
  assert.equal(b.code, 0, b.out);
  console.log("two concurrent runs:\n" + a.out + b.out);
  const queued = [a, b].map((r) => Number(r.out.match(/(\d+) queued/)[1]));
  const isWeekly = (m) => /^This week on ridge/.test(m.subject);
  for (const e of confirmed) await waitFor(() => mails(smtp.file, e).filter(isWeekly).length >= 1, 15000, "weekly for " + e);
  await new Promise((res) => setTimeout(res, 2000));  // anything sent twice would have arrived by now
  for (const e of confirmed) assert.equal(mails(smtp.file, e).filter(isWeekly).length, 1, e);
  assert.equal(mails(smtp.file, pending).filter(isWeekly).length, 0);
  assert.ok(queued.reduce((x, y) => x + y) >= confirmed.length);  // (reader@ and form@ may be confirmed too)
  const again = await weekly();
  assert.equal(again.code, 0);
  assert.match(again.out, / 0 queued/);
  const first = mails(smtp.file, "w1@example.com").find(isWeekly);
  assert.match(first.text, /TL;DR: /);
  const slug = first.text.match(/\/q\/([a-z0-9-]+)/)[1];
  assert.equal((await fetch(server.url + "/q/" + slug)).status, 200);  // a free question
  assert.match(first.html, /<strong>TL;DR:<\/strong>/);
  assert.equal(first.list_unsubscribe_post, "List-Unsubscribe=One-Click");

  // Next week: another question, never the same one.
  const nextWeek = String(Math.floor(Date.now() / 1000) + 7 * 86400);
  assert.equal((await weekly(["--now", nextWeek])).code, 0);
  await waitFor(() => mails(smtp.file, "w1@example.com").filter(isWeekly).length === 2, 15000, "next week's mail");
  const second = mails(smtp.file, "w1@example.com").filter(isWeekly)[1];
  assert.notEqual(second.text.match(/\/q\/([a-z0-9-]+)/)[1], slug);

  // One click (RFC 8058): POST to the header's URL, no session, at once.
  const url = second.list_unsubscribe.match(/^<([^>]+)>/)[1];
  const confirmPage = await fetch(url);
  assert.equal(confirmPage.status, 200);
  assert.match(await confirmPage.text(), /id="unsubscribe"/);
  const tampered = url.replace("w1%40example.com", "w2%40example.com");
  assert.equal((await fetch(tampered, { method: "POST", body: "List-Unsubscribe=One-Click", headers: { "Content-Type": "application/x-www-form-urlencoded" } })).status, 400);
  const oneClick = await fetch(url, { method: "POST", body: "List-Unsubscribe=One-Click", headers: { "Content-Type": "application/x-www-form-urlencoded" } });
  assert.equal(oneClick.status, 200);
  assert.match(await oneClick.text(), /id="unsubscribed"/);
  const weekAfter = String(Math.floor(Date.now() / 1000) + 14 * 86400);
  assert.equal((await weekly(["--now", weekAfter])).code, 0);
  await waitFor(() => mails(smtp.file, "w2@example.com").filter(isWeekly).length === 3, 15000, "w2's third week");
  await new Promise((res) => setTimeout(res, 1000));
  assert.equal(mails(smtp.file, "w1@example.com").filter(isWeekly).length, 2);  // none after unsubscribing
});

async function signup(email) {
  const res = await fetch(server.url + "/api/signup", { method: "POST", body: JSON.stringify({ email, password: "correct horse battery" }),
                                                         headers: headers({ "Content-Type": "application/json" }) });
  assert.equal(res.status, 201);
  return { cookie: res.headers.get("set-cookie").split(";")[0] };
}

async function signin(email, password) {
  const res = await fetch(server.url + "/api/signin", { method: "POST", body: JSON.stringify({ email, password }),
                                                         headers: headers({ "Content-Type": "application/json" }) });
  return { status: res.status, cookie: (res.headers.get("set-cookie") || "").split(";")[0] };
}

const me = async (c) => (await fetch(server.url + "/api/me", { headers: { cookie: c.cookie } })).json();

async function formPost(path, fields, cookie) {
  return fetch(server.url + path, { method: "POST", redirect: "manual", body: new URLSearchParams(fields).toString(),
                                    headers: headers({ "Content-Type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) }) });
}

test("sign-up sends a verification link that works once", async () => {
  const a = await signup("verify@example.com");
  const mail = await waitFor(() => mails(smtp.file, "verify@example.com").find((m) => /Verify/.test(m.subject)), 15000, "verification mail");
  assert.equal(mail.list_unsubscribe, "");
  const u = new URL(linkIn(mail.text, "/verify"));
  assert.equal((await fetch(u)).status, 200);
  assert.equal((await me(a)).email_verified, false);
  const ok = await formPost("/verify", Object.fromEntries(u.searchParams));
  assert.equal(ok.status, 200);
  assert.equal((await me(a)).email_verified, true);
  assert.equal((await formPost("/verify", Object.fromEntries(u.searchParams))).status, 400);  // used
  // Signing up again with the address: the same answer, and a notice to its owner.
  await signup("verify@example.com").catch(() => {});
  await waitFor(() => mails(smtp.file, "verify@example.com").find((m) => /tried to create/.test(m.subject)), 15000, "notice");
});

test("password reset end to end: same answer for any address, single use, every other session ends", async () => {
  const email = "reset@example.com";
  const first = await signup(email);
  const second = await signin(email, "correct horse battery");
  assert.equal(second.status, 200);
  assert.equal((await me(second)).signed_in, true);
  async function ask(address) {
    const page = await fetch(server.url + "/reset", { headers: headers() });
    const pre = (await page.text()).match(/name="pre" value="([0-9a-f]+)"/)[1];
    const cookie = page.headers.get("set-cookie").split(";")[0];
    const res = await formPost("/reset", { pre, email: address }, cookie);
    return { status: res.status, message: (await res.text()).match(/id="reset-message">([^<]*)</)[1] };
  }
  const known = await ask(email), unknown = await ask("nobody-here@example.com");
  assert.deepEqual(known, unknown);
  assert.equal(known.status, 200);
  assert.equal((await formPost("/reset", { pre: "forged", email })).status, 403);
  const mail = await waitFor(() => mails(smtp.file, email).find((m) => /Reset/.test(m.subject)), 15000, "reset mail");
  assert.equal(mails(smtp.file, "nobody-here@example.com").length, 0);
  const u = new URL(linkIn(mail.text, "/reset/confirm"));
  assert.equal((await fetch(u)).status, 200);
  const fields = Object.fromEntries(u.searchParams);
  const weak = await formPost("/reset/confirm", { ...fields, password: "short" });
  assert.equal(weak.status, 400);
  assert.match(await weak.text(), /password/);
  const forgedSig = await formPost("/reset/confirm", { ...fields, sig: "0".repeat(64), password: "a brand new passphrase" });
  assert.equal(forgedSig.status, 400);
  const done = await formPost("/reset/confirm", { ...fields, password: "a brand new passphrase" });
  assert.equal(done.status, 303);
  const fresh = { cookie: done.headers.get("set-cookie").split(";")[0] };
  assert.equal((await me(fresh)).signed_in, true);
  assert.equal((await me(first)).signed_in, false);
  assert.equal((await me(second)).signed_in, false);
  assert.equal((await formPost("/reset/confirm", { ...fields, password: "yet another passphrase" })).status, 400);  // used
  assert.equal((await signin(email, "correct horse battery")).status, 401);
  assert.equal((await signin(email, "a brand new passphrase")).status, 200);
});

test("SMTP down: the page answers fast, the sender retries with backoff, nothing is lost", async () => {
  const deadPort = await freePort();
  const port = await freePort();
  const downEnv = { ...env, RIDGE_SMTP_URL: `smtp://127.0.0.1:${deadPort}`, RIDGE_BASE_URL: `http://127.0.0.1:${port}` };
  const down = await startServer({ port, env: downEnv });
  let late;
  try {
    const started = performance.now();
    const res = await fetch(down.url + "/api/subscribe", { method: "POST", body: JSON.stringify({ email: "patient@example.com" }),
                                                           headers: { "Content-Type": "application/json" } });
    const ms = performance.now() - started;
    assert.equal(res.status, 202);
    assert.ok(ms < 1000, `subscribe took ${ms} ms with SMTP down`);
    const page = performance.now();
    assert.equal((await fetch(down.url + "/subscribe")).status, 200);
    assert.ok(performance.now() - page < 1000);
    await waitFor(() => /failed \(attempt 2\)/.test(down.output()), 15000, "two failed attempts in the log");
    assert.doesNotMatch(down.output(), new RegExp(SECRET));
    late = await startSmtp(deadPort, join(work, "late.jsonl"));
    const mail = await waitFor(() => mails(late.file, "patient@example.com")[0], 20000, "the retried mail");
    assert.match(mail.subject, /Confirm your subscription/);
    assert.equal(mails(late.file, "patient@example.com").length, 1);
  } finally {
    await down.stop();
    if (late) await late.stop();
  }
});

test("STARTTLS when the server offers it, AUTH only over TLS, the password never in the log", async () => {
  const cert = join(work, "cert.pem"), key = join(work, "key.pem");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
                           "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
  const password = "smtp-password-" + "q".repeat(12);
  const tlsPort = await freePort(), plainPort = await freePort();
  const tls = await startSmtp(tlsPort, join(work, "tls.jsonl"), ["--tls", cert, key, "--auth", "ridge-user:" + password]);
  const plain = await startSmtp(plainPort, join(work, "plain.jsonl"));
  const servers = [];
  try {
    const port = await freePort();
    const secure = await startServer({ port, env: { ...env, RIDGE_BASE_URL: `http://127.0.0.1:${port}`, RIDGE_SMTP_URL: `smtp://127.0.0.1:${tlsPort}`,
                                                    RIDGE_SMTP_USER: "ridge-user", RIDGE_SMTP_PASSWORD: password, RIDGE_SMTP_CA_FILE: cert } });
    servers.push(secure);
    const res = await fetch(secure.url + "/api/subscribe", { method: "POST", body: JSON.stringify({ email: "tls@example.com" }),
                                                             headers: { "Content-Type": "application/json" } });
    assert.equal(res.status, 202);
    const mail = await waitFor(() => mails(tls.file, "tls@example.com")[0], 15000, "the mail over STARTTLS");
    assert.equal(mail.tls, true);
    assert.equal(mail.user, "ridge-user");
    // Credentials and a server without STARTTLS: nothing is sent in the clear; the mail waits.
    const port2 = await freePort();
    const refused = await startServer({ port: port2, env: { ...env, RIDGE_BASE_URL: `http://127.0.0.1:${port2}`, RIDGE_SMTP_URL: `smtp://127.0.0.1:${plainPort}`,
                                                           RIDGE_SMTP_USER: "ridge-user", RIDGE_SMTP_PASSWORD: password } });
    servers.push(refused);
    await fetch(refused.url + "/api/subscribe", { method: "POST", body: JSON.stringify({ email: "clear@example.com" }),
                                                  headers: { "Content-Type": "application/json" } });
    await waitFor(() => /failed \(attempt 1\)/.test(refused.output()), 15000, "the refusal in the log");
    assert.equal(mails(plain.file, "clear@example.com").length, 0);
    for (const s of servers) assert.doesNotMatch(s.output(), new RegExp(password));
  } finally {
    for (const s of servers) await s.stop();
    await tls.stop();
    await plain.stop();
  }
});

test("weekly on PostgreSQL: two concurrent runs send one mail per subscriber", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ridge-mail-pg-"));
  const fixture = join(here, "..", "pg_fixture.sh");
  execFileSync(fixture, ["start", dir], { stdio: "ignore" });
  let pg;
  try {
    const db = readFileSync(join(dir, "url"), "utf8").trim();
    const port = await freePort();
    pg = await startServer({ port, db, env: { ...env, RIDGE_BASE_URL: `http://127.0.0.1:${port}` }, args: ["--trusted-proxy", "127.0.0.1/32"] });
    const people = ["pg1@example.com", "pg2@example.com", "pg3@example.com"];
    for (const e of people) { assert.equal((await subscribe(e, pg.url)).status, 202); await confirm(e, pg.url); }
    const runs = await Promise.all([weekly([], db), weekly([], db)]);
    for (const r of runs) assert.equal(r.code, 0, r.out);
    const isWeekly = (m) => /^This week on ridge/.test(m.subject);
    for (const e of people) await waitFor(() => mails(smtp.file, e).filter(isWeekly).length >= 1, 15000, "weekly for " + e);
    await new Promise((res) => setTimeout(res, 2000));
    for (const e of people) assert.equal(mails(smtp.file, e).filter(isWeekly).length, 1, e);
    assert.equal(runs.map((r) => Number(r.out.match(/(\d+) queued/)[1])).reduce((x, y) => x + y), people.length);
  } finally {
    if (pg) await pg.stop();
    execFileSync(fixture, ["stop", dir], { stdio: "ignore" });
  }
});
