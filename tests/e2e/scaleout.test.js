// Scale-out, end to end: a throwaway PostgreSQL (tests/pg_fixture.sh), three `ridge serve` on
// it trusting the proxy, and Debian's nginx in front with the configuration README.md gives
// (read from the README, its ports replaced). Each server serves /metrics on its own
// --metrics-bind listener, which the test scrapes to see which server answered what.
// Through nginx: a session made on one server works on the others; the sign-in rate limit is
// one budget across servers; reviews posted round-robin are all there; the weekly mail goes
// out once with two `ridge mail weekly` runs and three server senders; under load one server
// is SIGKILLed and started again (acknowledged writes kept, GETs retried on the survivors, the
// starting server passed over until it listens); PostgreSQL stopped and started under load
// (503 while down, reconnected after, acknowledged writes kept). Every wait is bounded.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, existsSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./server.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const fixture = join(here, "..", "pg_fixture.sh");
const SECRET = "e2e scale-out secret " + "s".repeat(20);
const PASSWORD = "correct horse battery";
const work = mkdtempSync(join(tmpdir(), "ridge-scaleout-"));
// Its own temporary directory: the fixture hands it to the postgres user, who cannot enter `work`.
const pgDir = mkdtempSync(join(tmpdir(), "ridge-scaleout-pg-"));
let pgUrl, smtp, nginx, nginxPort, env;
const servers = [];  // { port, metricsPort, server }
let clientNumber = 0;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

async function waitFor(fn, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out after " + ms + " ms waiting for " + what);
    await sleep(100);
  }
}

// Every request is bounded; a network error is status 0.
async function request(url, { method = "GET", body, cookie, csrf, from, timeout = 10000 } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (cookie) headers.Cookie = cookie;
  if (csrf) headers["X-CSRF-Token"] = csrf;
  if (from) headers["X-Forwarded-For"] = from;
  try {
    const r = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(timeout) });
    const text = await r.text();
    let json = null;
    try { json = JSON.parse(text); } catch { /* a page, not JSON */ }
    return { status: r.status, text, json, cookie: (r.headers.get("set-cookie") || "").split(";")[0] };
  } catch (e) {
    return { status: 0, text: String(e), json: null, cookie: "" };
  }
}
const viaNginx = (path, options) => request(`http://127.0.0.1:${nginxPort}${path}`, options);
// Each client gets its own address (X-Forwarded-For, believed from nginx's 127.0.0.1).
const nextClient = () => { clientNumber += 1; return `198.51.${clientNumber >> 8}.${clientNumber & 255}`; };

async function signup(email) {
  const r = await viaNginx("/api/signup", { method: "POST", body: { email, password: PASSWORD }, from: nextClient() });
  assert.equal(r.status, 201, r.text);
  return { cookie: r.cookie, csrf: r.json.csrf_token };
}

// The Prometheus text of one server's --metrics-bind listener, and the sum of the samples of
// `name` whose labels include `labels`.
async function scrape(s) {
  const r = await request(`http://127.0.0.1:${s.metricsPort}/metrics`);
  assert.equal(r.status, 200, r.text);
  return r.text;
}
function sample(text, name, labels = {}) {
  let sum = 0;
  for (const line of text.split("\n")) {
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] || "").matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) sum += Number(m[3]);
  }
  return sum;
}
async function perServer(name, labels) {
  return Promise.all(servers.map(async (s) => sample(await scrape(s), name, labels)));
}
const minus = (after, before) => after.map((v, i) => v - before[i]);

async function startRidge(slot) {
  const s = servers[slot];
  s.server = await startServer({ port: s.port, db: pgUrl, env, args: ["--trusted-proxy", "127.0.0.1/32", "--metrics-bind", `127.0.0.1:${s.metricsPort}`] });
  return s.server;
}

function asPostgres(args) {
  const bin = execFileSync("bash", ["-c", "ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1"]).toString().trim();
  const cmd = [join(bin, "pg_ctl"), ...args];
  if (process.getuid() === 0) execFileSync("runuser", ["-u", "postgres", "--", ...cmd], { stdio: "ignore", timeout: 60000 });
  else execFileSync(cmd[0], cmd.slice(1), { stdio: "ignore", timeout: 60000 });
}

// Signals a child and waits for it to exit, at most 10 s, then kills it.
function stopChild(child, signal) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill("SIGKILL"), 10000);
    child.on("exit", () => { clearTimeout(timer); resolve(); });
    child.kill(signal);
  });
}

async function startSmtp(port, file) {
  const child = spawn("/usr/bin/python3", [join(here, "smtp_server.py"), String(port), file], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("smtp server did not start: " + output)), 15000);
    const onData = (d) => { output += d; if (/listening/.test(output)) { clearTimeout(timer); resolve(); } };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => reject(new Error("smtp server exited " + code + ": " + output)));
  });
  return { file, stop: () => stopChild(child, "SIGTERM") };
}
const mails = (rcpt) => !existsSync(smtp.file) ? [] :
  readFileSync(smtp.file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((m) => m.rcpt === rcpt);

// README.md's nginx block, with the upstream servers and the listen port made this test's.
function nginxConfig(dir) {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const block = readme.match(/```nginx\n([\s\S]*?)```/);
  assert.ok(block, "README.md has an ```nginx block");
  let upstreams = 0;
  const http = block[1]
    .replace(/^(\s*)server \S+:\d+( .*;)$/gm, (_, indent, rest) => `${indent}server 127.0.0.1:${servers[upstreams++].port}${rest}`)
    .replace(/listen 80;/, `listen 127.0.0.1:${nginxPort};`);
  assert.equal(upstreams, servers.length, "the README's upstream has one line per server");
  for (const t of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(join(dir, t), { recursive: true });
  return `daemon off;
${process.getuid() === 0 ? "user root;" : ""}
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log info;
events { worker_connections 1024; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${http}
}
`;
}

async function startNginx() {
  const dir = join(work, "nginx");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "nginx.conf"), nginxConfig(dir));
  const child = spawn("/usr/sbin/nginx", ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", join(dir, "error.log")], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => { output += d; });
  child.stderr.on("data", (d) => { output += d; });
  let failed = null;
  child.on("error", (e) => { failed = e; });  // not installed: scripts/deps.sh installs it
  await waitFor(async () => {
    if (failed) throw new Error("cannot run /usr/sbin/nginx: " + failed.message);
    if (child.exitCode !== null) throw new Error("nginx exited " + child.exitCode + ": " + output);
    return (await viaNginx("/healthz", { timeout: 2000 })).status === 200;
  }, 15000, "nginx to answer /healthz");
  const log = join(dir, "error.log");
  return {
    log, child,
    logSize: () => statSync(log).size,
    logSince: (offset) => readFileSync(log, "utf8").slice(offset),
    stop: () => stopChild(child, "SIGQUIT"),
  };
}

before(async () => {
  execFileSync(fixture, ["start", pgDir], { stdio: "ignore", timeout: 60000 });
  pgUrl = readFileSync(join(pgDir, "url"), "utf8").trim();
  const smtpPort = await freePort();
  smtp = await startSmtp(smtpPort, join(work, "mail.jsonl"));
  nginxPort = await freePort();
  env = { RIDGE_SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, RIDGE_SECRET: SECRET, RIDGE_BASE_URL: `http://127.0.0.1:${nginxPort}`,
          RIDGE_MAIL_FROM: "ridge <weekly@ridge.test>", RIDGE_MAIL_RETRY_SECONDS: "1", RIDGE_MAIL_POLL_SECONDS: "1" };
  for (let i = 0; i < 3; ++i) servers.push({ port: await freePort(), metricsPort: await freePort() });
  // The first migrates; the others start together after it (the advisory lock serializes them anyway).
  await startRidge(0);
  await Promise.all([startRidge(1), startRidge(2)]);
  nginx = await startNginx();
});

after(async () => {
  if (nginx) await nginx.stop();
  for (const s of servers) if (s.server) await s.server.stop();
  if (smtp) await smtp.stop();
  try { execFileSync(fixture, ["stop", pgDir], { stdio: "ignore", timeout: 60000 }); } catch { /* already gone */ }
  rmSync(pgDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

test("metrics: a separate listener has every series, and counters move", async () => {
  const text = await scrape(servers[0]);
  for (const name of ["ridge_http_requests_total", "ridge_http_request_duration_seconds_bucket", "ridge_http_requests_in_flight",
                      "ridge_worker_queue_depth", "ridge_store_call_duration_seconds_bucket", "ridge_store_pool_connections",
                      "ridge_signin_refusals_total", "ridge_mail_deliveries_total"]) {
    assert.match(text, new RegExp("^" + name + "[{ ]", "m"), name);
  }
  assert.equal(sample(text, "ridge_store_pool_connections", { state: "total" }), 16);  // the pool open_postgres makes (16)
  // The main listener does not answer /metrics when --metrics-bind is set.
  assert.equal((await request(`http://127.0.0.1:${servers[0].port}/metrics`)).status, 404);
  // The other listener answers nothing but /metrics.
  assert.equal((await request(`http://127.0.0.1:${servers[0].metricsPort}/healthz`)).status, 404);
  // A bad address is named, with what is accepted.
  for (const bad of ["9090", "localhost:9090", "127.0.0.1:99999"]) {
    let err = "";
    try {
      execFileSync(process.env.RIDGE_BIN, ["serve", "--db", pgUrl, "--metrics-bind", bad], { stdio: "pipe", timeout: 20000 });
      assert.fail("ridge serve --metrics-bind " + bad + " started");
    } catch (e) {
      assert.equal(e.status, 2, String(e.stderr));
      err = String(e.stderr);
    }
    assert.match(err, new RegExp(`--metrics-bind '${bad}' is not an address and port; accepted: ADDR:PORT`));
  }
  const before = await scrape(servers[0]);
  const ok = await request(`http://127.0.0.1:${servers[0].port}/api/signin`, { method: "POST", body: { email: "nobody@example.com", password: "wrong password here" } });
  assert.equal(ok.status, 401);
  const after = await scrape(servers[0]);
  assert.equal(sample(after, "ridge_http_requests_total", { route: "/api/signin", status: "401" }) -
               sample(before, "ridge_http_requests_total", { route: "/api/signin", status: "401" }), 1);
  assert.equal(sample(after, "ridge_http_request_duration_seconds_count", { route: "/api/signin" }) -
               sample(before, "ridge_http_request_duration_seconds_count", { route: "/api/signin" }), 1);
  assert.ok(sample(after, "ridge_store_call_duration_seconds_count", { operation: "find_user_by_email", outcome: "ok" }) >
            sample(before, "ridge_store_call_duration_seconds_count", { operation: "find_user_by_email", outcome: "ok" }));
  assert.ok(sample(after, "ridge_store_call_duration_seconds_count", { operation: "take_token", outcome: "ok" }) >=
            sample(before, "ridge_store_call_duration_seconds_count", { operation: "take_token", outcome: "ok" }) + 3);
});

test("a session made through one server works on every server", async () => {
  const before = await perServer("ridge_http_requests_total", { route: "/api/me", status: "200" });
  const user = await signup("session@example.com");
  for (let i = 0; i < 9; ++i) {
    const me = await viaNginx("/api/me", { cookie: user.cookie });
    assert.equal(me.status, 200);
    assert.equal(me.json.signed_in, true, "request " + i);
    assert.equal(me.json.email, "session@example.com");
  }
  const moved = minus(await perServer("ridge_http_requests_total", { route: "/api/me", status: "200" }), before);
  console.log("GET /api/me answered per server:", moved);
  assert.ok(moved.every((n) => n >= 1), "each server answered a signed-in /api/me: " + moved);
});

test("the sign-in rate limit is one budget across the servers", async () => {
  await signup("limited@example.com");
  const attacker = "203.0.113.9";
  const failedBefore = await perServer("ridge_http_requests_total", { route: "/api/signin", status: "401" });
  const refusedBefore = await perServer("ridge_signin_refusals_total");
  const statuses = [];
  for (let i = 0; i < 9; ++i) {
    const r = await viaNginx("/api/signin", { method: "POST", body: { email: "limited@example.com", password: "wrong password " + i }, from: attacker });
    statuses.push(r.status);
  }
  // The pair budget (this address, this account) is 5 failures, then one a minute: per process
  // it would be 15 before a 429 with three servers.
  assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429, 429, 429]);
  const failed = minus(await perServer("ridge_http_requests_total", { route: "/api/signin", status: "401" }), failedBefore);
  const refused = minus(await perServer("ridge_signin_refusals_total"), refusedBefore);
  console.log("wrong passwords per server:", failed, "refusals per server:", refused);
  assert.equal(failed.reduce((a, b) => a + b), 5);
  assert.equal(refused.reduce((a, b) => a + b), 4);
  assert.ok(failed.filter((n) => n > 0).length >= 2, "the failures landed on several servers");
  assert.ok(refused.filter((n) => n > 0).length >= 2, "the refusals came from several servers");
  // The right password from this address waits too (the pair is spent); from another it works.
  assert.equal((await viaNginx("/api/signin", { method: "POST", body: { email: "limited@example.com", password: PASSWORD }, from: attacker })).status, 429);
  assert.equal((await viaNginx("/api/signin", { method: "POST", body: { email: "limited@example.com", password: PASSWORD }, from: nextClient() })).status, 200);
});

test("the sign-up rate limit is one budget across the servers", async () => {
  const before = await perServer("ridge_http_requests_total", { route: "/api/signup", status: "201" });
  const statuses = [];
  for (let i = 0; i < 11; ++i) {
    const r = await viaNginx("/api/signup", { method: "POST", body: { email: `burst-${i}@example.com`, password: PASSWORD }, from: "203.0.113.10" });
    statuses.push(r.status);
  }
  // 10 per address, then one every 30 s: per process it would be 30 with three servers.
  assert.deepEqual(statuses, [...Array(10).fill(201), 429]);
  const made = minus(await perServer("ridge_http_requests_total", { route: "/api/signup", status: "201" }), before);
  console.log("sign-ups per server:", made);
  assert.ok(made.every((n) => n >= 1), "every server took some: " + made);
});

test("a user's reviews posted round-robin are all there", async () => {
  const user = await signup("round-robin@example.com");
  const slugs = (await viaNginx("/api/questions")).json.questions.map((q) => q.slug).slice(0, 30);
  const before = await perServer("ridge_http_requests_total", { route: "/api/reviews", status: "200" });
  for (const slug of slugs) {
    const r = await viaNginx("/api/reviews", { method: "POST", body: { slug, grade: 3 }, cookie: user.cookie, csrf: user.csrf });
    assert.equal(r.status, 200, r.text);
  }
  const moved = minus(await perServer("ridge_http_requests_total", { route: "/api/reviews", status: "200" }), before);
  console.log("POST /api/reviews per server:", moved);
  assert.ok(moved.every((n) => n >= 1), "every server took some: " + moved);
  const cards = (await viaNginx("/api/reviews/due?all=1", { cookie: user.cookie })).json.due.map((c) => c.slug);
  assert.deepEqual([...cards].sort(), [...slugs].sort());
});

test("the weekly mail goes out once per subscriber with two weekly runs and three senders", async () => {
  const sentBefore = (await perServer("ridge_mail_deliveries_total", { outcome: "sent" })).reduce((a, b) => a + b);
  const readers = ["weekly-a@example.com", "weekly-b@example.com", "weekly-c@example.com"];
  for (const email of readers) {
    const r = await viaNginx("/api/subscribe", { method: "POST", body: { email }, from: nextClient() });
    assert.equal(r.status, 202, r.text);
    const mail = await waitFor(() => mails(email).find((m) => /Confirm your subscription/.test(m.subject)), 20000, "confirmation of " + email);
    const link = new URL(mail.text.match(/https?:\/\/[^\s"<>]+\/subscribe\/confirm\?[^\s"<>]+/)[0]);
    assert.equal(link.port, String(nginxPort), "links point at the proxy");
    const res = await fetch(`http://127.0.0.1:${nginxPort}/subscribe/confirm`, {
      method: "POST", body: link.searchParams.toString(), signal: AbortSignal.timeout(10000),
      headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": nextClient() } });
    assert.equal(res.status, 200);
  }
  // The confirmations went out through the servers' senders (ridge_mail_deliveries_total).
  const sentAfter = (await perServer("ridge_mail_deliveries_total", { outcome: "sent" })).reduce((a, b) => a + b);
  assert.ok(sentAfter - sentBefore >= readers.length, `mail counted as sent: ${sentAfter - sentBefore}`);
  const weekly = () => new Promise((resolve) => {
    const child = spawn(process.env.RIDGE_BIN, ["mail", "weekly", "--db", pgUrl], { env: { ...process.env, ...env } });
    let out = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 60000);
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { out += d; });
    child.on("exit", (code) => { clearTimeout(timer); resolve({ code, out }); });
  });
  const runs = await Promise.all([weekly(), weekly()]);
  for (const r of runs) assert.equal(r.code, 0, r.out);
  const isWeekly = (m) => /^This week on ridge/.test(m.subject);
  for (const e of readers) await waitFor(() => mails(e).some(isWeekly), 20000, "the weekly mail to " + e);
  await sleep(2000);  // a second copy, from any sender, would have arrived by now (they poll every second)
  for (const e of readers) assert.equal(mails(e).filter(isWeekly).length, 1, e);
});

// Review writers and readers through nginx until `stop()`: each writer is a user posting
// reviews of new questions; a write counts as acknowledged on a 200. Readers GET /api/me.
function load(users, slugs) {
  const state = { stopped: false, acked: users.map(() => []), attempted: users.map(() => 0), writes: {}, reads: {}, readFailures: [] };
  const count = (map, status) => { map[status] = (map[status] || 0) + 1; };
  const writers = users.map(async (u, i) => {
    let next = 0;
    while (!state.stopped && next < slugs.length) {
      const slug = slugs[next++];
      state.attempted[i] += 1;
      const r = await viaNginx("/api/reviews", { method: "POST", body: { slug, grade: 3 }, cookie: u.cookie, csrf: u.csrf });
      count(state.writes, r.status);
      if (r.status === 200) state.acked[i].push(slug);
      else await sleep(50);
    }
  });
  const readers = users.map(async (u) => {
    while (!state.stopped) {
      const t = Date.now();
      const r = await viaNginx("/api/me", { cookie: u.cookie });
      count(state.reads, r.status);
      if (r.status !== 200) state.readFailures.push({ at: t, status: r.status, text: r.text.slice(0, 200) });
      await sleep(20);
    }
  });
  return { state, stop: async () => { state.stopped = true; await Promise.all([...writers, ...readers]); return state; } };
}

async function everyAcknowledgedWriteIsThere(users, state) {
  for (let i = 0; i < users.length; ++i) {
    const r = await viaNginx("/api/reviews/due?all=1", { cookie: users[i].cookie });
    assert.equal(r.status, 200, r.text);
    const stored = new Set(r.json.due.map((c) => c.slug));
    const lost = state.acked[i].filter((s) => !stored.has(s));
    assert.deepEqual(lost, [], `user ${i}: acknowledged reviews missing`);
    assert.ok(stored.size <= state.attempted[i]);
  }
}

test("one server SIGKILLed and started again under load: nothing acknowledged lost, GETs retried, the starter passed over", async () => {
  const users = [];
  for (let i = 0; i < 4; ++i) users.push(await signup(`kill-${i}@example.com`));
  const slugs = (await viaNginx("/api/questions")).json.questions.map((q) => q.slug);
  const victim = servers[0];
  const victimAddress = `127.0.0.1:${victim.port}`;
  const { state, stop } = load(users, slugs);
  await sleep(1500);
  const logAtKill = nginx.logSize();
  victim.server.child.kill("SIGKILL");
  await victim.server.exited;
  const killedAt = Date.now();
  await sleep(2000);  // the survivors carry the load meanwhile
  const spawnedAt = Date.now();
  const logAtStart = nginx.logSize();
  rmSync(victim.server.dir, { recursive: true, force: true });
  const restarted = await startRidge(0);
  const listeningAt = Date.now();
  const duringStart = nginx.logSince(logAtStart);
  assert.equal((await request(restarted.url + "/readyz")).status, 200, "ready once it listens");
  // Back in rotation: it answers through nginx again (fail_timeout is 1 s).
  const meBefore = sample(await scrape(victim), "ridge_http_requests_total", { route: "/api/me", status: "200" });
  await waitFor(async () => sample(await scrape(victim), "ridge_http_requests_total", { route: "/api/me", status: "200" }) > meBefore,
                15000, "the restarted server to get traffic");
  const final = await stop();
  const afterKill = nginx.logSince(logAtKill);
  console.log(`killed at +0 ms, started at +${spawnedAt - killedAt} ms, listening at +${listeningAt - killedAt} ms; ` +
              `writes by status ${JSON.stringify(final.writes)}, reads by status ${JSON.stringify(final.reads)}`);
  const refusedWhileStarting = duringStart.split("\n").filter((l) => l.includes("Connection refused") && l.includes(victimAddress)).length;
  console.log(`nginx: ${refusedWhileStarting} connections refused by the starting server, passed to the next`);
  // nginx tries a failed server again after fail_timeout (1 s): a start-up longer than two of
  // those has been tried, refused and passed over (with no failed GET, checked below).
  if (listeningAt - spawnedAt > 2500) assert.ok(refusedWhileStarting >= 1, "nginx tried the starting server");
  assert.ok(afterKill.includes(victimAddress), "nginx saw the killed server fail");
  assert.deepEqual(final.readFailures, [], "every GET was answered (retried on a survivor)");
  assert.ok(final.reads[200] > 50, "the readers ran");
  assert.ok(final.writes[200] > 20, "the writers ran");
  await everyAcknowledgedWriteIsThere(users, final);
});

test("PostgreSQL stopped and started under load: 503 while down, reconnected after, nothing acknowledged lost", async () => {
  const users = [];
  for (let i = 0; i < 3; ++i) users.push(await signup(`pg-${i}@example.com`));
  const slugs = (await viaNginx("/api/questions")).json.questions.map((q) => q.slug);
  const port = new URL(pgUrl).port;
  const { state, stop } = load(users, slugs);
  await sleep(1500);
  asPostgres(["-D", join(pgDir, "data"), "-m", "fast", "-w", "-t", "30", "stop"]);
  try {
    // Down: every server says so on /readyz, and a write through nginx gets 503 with Retry-After.
    for (const s of servers) {
      const r = await waitFor(async () => { const x = await request(`http://127.0.0.1:${s.port}/readyz`); return x.status === 503 && x; },
                              10000, "503 on /readyz");
      assert.match(r.text, /database postgresql unreachable/);
    }
    const write = await waitFor(async () => {
      const r = await fetch(`http://127.0.0.1:${nginxPort}/api/reviews`, { method: "POST", body: JSON.stringify({ slug: slugs[slugs.length - 1], grade: 3 }),
        headers: { "Content-Type": "application/json", Cookie: users[0].cookie, "X-CSRF-Token": users[0].csrf }, signal: AbortSignal.timeout(10000) });
      return r.status === 503 && r;
    }, 10000, "a 503 to a write");
    assert.ok(Number(write.headers.get("retry-after")) > 0);
    await sleep(1000);
  } finally {
    asPostgres(["-D", join(pgDir, "data"), "-l", join(pgDir, "log"), "-w", "-t", "30",
                "-o", `-p ${port} -k ${pgDir} -c listen_addresses=127.0.0.1 -c fsync=on`, "start"]);
  }
  // Back: every server ready again, and writes through nginx succeed on every server.
  for (const s of servers) {
    await waitFor(async () => (await request(`http://127.0.0.1:${s.port}/readyz`)).status === 200, 20000, "200 on /readyz");
  }
  const before = await perServer("ridge_http_requests_total", { route: "/api/reviews", status: "200" });
  await waitFor(async () => {
    const now = minus(await perServer("ridge_http_requests_total", { route: "/api/reviews", status: "200" }), before);
    return now.every((n) => n >= 3);
  }, 20000, "reviews stored through every server after the restart");
  const final = await stop();
  console.log(`writes by status ${JSON.stringify(final.writes)}, reads by status ${JSON.stringify(final.reads)}`);
  assert.ok(final.writes[503] > 0, "writes were refused with 503 while the database was down");
  await everyAcknowledgedWriteIsThere(users, final);
});
