// Paid access end to end over real sockets: Stripe Checkout against a local stand-in for the
// REST API, webhooks signed by the official stripe package, and the grant-only site.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import Stripe from "stripe";
import { startServer } from "./server.js";

const SECRET = "whsec_e2e_" + "x".repeat(24);
const KEY = "sk_test_e2e_key";
const stripe = new Stripe(KEY);
let api, apiUrl, server, paidSlug;
const apiRequests = [];

before(async () => {
  api = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => { body += d; });
    req.on("end", () => {
      apiRequests.push({ method: req.method, url: req.url, auth: req.headers.authorization, body: new URLSearchParams(body) });
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ id: "cs_test_1", object: "checkout.session", url: "https://checkout.stripe.test/c/pay/cs_test_1" }));
    });
  });
  await new Promise((r) => api.listen(0, "127.0.0.1", r));
  apiUrl = `http://127.0.0.1:${api.address().port}`;
  server = await startServer({ env: { RIDGE_STRIPE_API_BASE: apiUrl, RIDGE_STRIPE_SECRET_KEY: KEY, RIDGE_STRIPE_WEBHOOK_SECRET: SECRET,
                                      RIDGE_PRICE: "USD 2500", RIDGE_BASE_URL: "https://ridge.test" } });
  const list = await (await fetch(server.url + "/api/questions")).json();
  paidSlug = list.questions.find((q) => !q.free).slug;
});
after(async () => { await server.stop(); api.close(); });

async function signup(email, url = server.url) {
  const res = await fetch(url + "/api/signup", { method: "POST", body: JSON.stringify({ email, password: "correct horse battery" }),
                                                  headers: { "Content-Type": "application/json" } });
  assert.equal(res.status, 201);
  const cookie = res.headers.get("set-cookie").split(";")[0];
  const { csrf_token } = await res.json();
  return { cookie, csrf: csrf_token };
}

async function me(client, url = server.url) {
  return (await fetch(url + "/api/me", { headers: { cookie: client.cookie } })).json();
}

function event(id, accountId) {
  return JSON.stringify({ id, object: "event", type: "checkout.session.completed",
                          data: { object: { id: "cs_" + id, object: "checkout.session", client_reference_id: accountId, payment_status: "paid",
                                            mode: "payment", currency: "usd", amount_total: 2500, payment_intent: "pi_" + id } } });
}

async function deliver(payload, header) {
  const res = await fetch(server.url + "/billing/webhook", { method: "POST", body: payload,
                                                             headers: { "Content-Type": "application/json", "Stripe-Signature": header } });
  return { status: res.status, body: await res.json() };
}

const sign = (payload, opts = {}) => stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, ...opts });

function addMonths(date, n) {
  const d = new Date(date);
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + n);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}

test("checkout creates a session with the account id and redirects to it", async () => {
  const a = await signup("checkout@example.com");
  const { account_id } = await me(a);
  assert.match(account_id, /^[0-9a-f]{32}$/);
  const refused = await fetch(server.url + "/billing/checkout", { method: "POST", redirect: "manual", body: "csrf=wrong",
                                                                  headers: { cookie: a.cookie, "Content-Type": "application/x-www-form-urlencoded" } });
  assert.equal(refused.status, 403);
  assert.equal(apiRequests.length, 0);
  const res = await fetch(server.url + "/billing/checkout", { method: "POST", redirect: "manual", body: "csrf=" + a.csrf,
                                                              headers: { cookie: a.cookie, "Content-Type": "application/x-www-form-urlencoded" } });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "https://checkout.stripe.test/c/pay/cs_test_1");
  assert.equal(apiRequests.length, 1);
  const call = apiRequests[0];
  assert.equal(call.method, "POST");
  assert.equal(call.url, "/v1/checkout/sessions");
  assert.equal(call.auth, "Bearer " + KEY);
  assert.equal(call.body.get("client_reference_id"), account_id);
  assert.equal(call.body.get("mode"), "payment");
  assert.equal(call.body.get("line_items[0][price_data][currency]"), "usd");
  assert.equal(call.body.get("line_items[0][price_data][unit_amount]"), "2500");
  assert.equal(call.body.get("success_url"), "https://ridge.test/settings?paid=1");
  const anonymous = await fetch(server.url + "/billing/checkout", { method: "POST", redirect: "manual" });
  assert.equal(anonymous.status, 303);
  assert.match(anonymous.headers.get("location"), /^\/signin/);
});

test("webhooks: a good event grants 6 months once, a second payment extends, bad ones grant nothing; 402 then 200", async () => {
  const a = await signup("payer@example.com");
  const { account_id } = await me(a);
  assert.equal((await me(a)).access_until, null);
  const locked = await fetch(server.url + "/api/questions/" + paidSlug, { headers: { cookie: a.cookie } });
  assert.equal(locked.status, 402);
  const lockedBody = await locked.json();
  assert.equal(lockedBody.price.display, "USD 25.00");
  assert.equal(lockedBody.price.amount, 2500);
  const page = await fetch(server.url + "/q/" + paidSlug, { headers: { cookie: a.cookie } });
  assert.equal(page.status, 402);
  const wall = await page.text();
  assert.ok(wall.includes("USD 25.00") && wall.includes("TL;DR"), "the paywall shows the price and the TL;DR");

  const started = new Date();
  const first = event("evt_e2e_1", account_id);
  let r = await deliver(first, sign(first));
  assert.equal(r.status, 200);
  assert.equal(r.body.granted, true);
  const end1 = new Date((await me(a)).access_until);
  const expected1 = addMonths(started, 6);
  assert.ok(Math.abs(end1 - expected1) < 5000, `${end1.toISOString()} vs ${expected1.toISOString()}`);

  r = await deliver(first, sign(first));  // the provider retries: nothing changes
  assert.equal(r.status, 200);
  assert.equal(r.body.granted, false);
  assert.equal((await me(a)).access_until, end1.toISOString().replace(/\.\d{3}Z$/, "Z"));

  const second = event("evt_e2e_2", account_id);
  r = await deliver(second, sign(second));
  assert.equal(r.status, 200);
  const end2 = new Date((await me(a)).access_until);
  assert.equal(end2.getTime(), addMonths(end1, 6).getTime());

  const third = event("evt_e2e_3", account_id);
  const badSecret = stripe.webhooks.generateTestHeaderString({ payload: third, secret: "whsec_wrong" });
  assert.equal((await deliver(third, badSecret)).status, 400);
  const stale = sign(third, { timestamp: Math.floor(Date.now() / 1000) - 301 });
  assert.equal((await deliver(third, stale)).status, 400);
  const tampered = third.replace("evt_e2e_3", "evt_e2e_4");
  assert.equal((await deliver(tampered, sign(third))).status, 400);
  assert.equal((await deliver(third, "")).status, 400);
  assert.equal((await me(a)).access_until, end2.toISOString().replace(/\.\d{3}Z$/, "Z"));

  const open = await fetch(server.url + "/api/questions/" + paidSlug, { headers: { cookie: a.cookie } });
  assert.equal(open.status, 200);
  assert.ok((await open.json()).html.length > 100);
  const settings = await (await fetch(server.url + "/settings", { headers: { cookie: a.cookie } })).text();
  assert.ok(settings.includes(end2.toISOString().replace(/\.\d{3}Z$/, "Z")));
});

test("free questions stay open to everyone", async () => {
  const list = await (await fetch(server.url + "/api/questions")).json();
  const free = list.questions.find((q) => q.free);
  assert.equal((await fetch(server.url + "/api/questions/" + free.slug)).status, 200);
  assert.equal((await fetch(server.url + "/q/" + free.slug)).status, 200);
});

test("without keys the site is grant-only, and ridge grant opens the answers", async () => {
  const plain = await startServer({ env: { RIDGE_STRIPE_SECRET_KEY: "", RIDGE_STRIPE_WEBHOOK_SECRET: "", RIDGE_PRICE: "EUR 1900" } });
  try {
    const pricing = await (await fetch(plain.url + "/pricing")).text();
    assert.match(pricing, /grant-only/);
    assert.match(pricing, /EUR 19\.00/);
    assert.equal((await fetch(plain.url + "/billing/checkout", { method: "POST" })).status, 503);
    const a = await signup("granted@example.com", plain.url);
    assert.equal((await fetch(plain.url + "/api/questions/" + paidSlug, { headers: { cookie: a.cookie } })).status, 402);
    const out = execFileSync(process.env.RIDGE_BIN, ["grant", "granted@example.com", "--months", "2", "--db", plain.db]).toString();
    assert.match(out, /has access until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
    assert.equal((await fetch(plain.url + "/api/questions/" + paidSlug, { headers: { cookie: a.cookie } })).status, 200);
    execFileSync(process.env.RIDGE_BIN, ["revoke", "granted@example.com", "--db", plain.db]);
    assert.equal((await me(a, plain.url)).access_until, null);
    assert.equal((await fetch(plain.url + "/api/questions/" + paidSlug, { headers: { cookie: a.cookie } })).status, 402);
  } finally {
    await plain.stop();
  }
});
