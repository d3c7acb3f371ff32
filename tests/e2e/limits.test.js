// Request limits and malformed input over a real socket: 413 for a body over the limit, 431
// for headers over it, 400 for a malformed request or target, and Date and Content-Length
// on every response.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { startServer } from "./server.js";

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

function raw(text) {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.write(text));
    let data = "";
    socket.on("data", (d) => { data += d; });
    socket.on("end", () => resolve(data));
    socket.on("close", () => resolve(data));
    socket.on("error", () => resolve(data));  // a server closing early (413) breaks our write
    setTimeout(() => { socket.destroy(); resolve(data); }, 5000);
  });
}

test("a body over the limit gets 413", async () => {
  const body = "x".repeat(2 * 1024 * 1024);
  const res = await raw(`POST /api/signin HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  assert.match(res, /^HTTP\/1\.1 413 /);
});

test("headers over the limit get 431", async () => {
  const res = await raw(`GET / HTTP/1.1\r\nHost: t\r\nX-Big: ${"y".repeat(20000)}\r\n\r\n`);
  assert.match(res, /^HTTP\/1\.1 431 /);
});

test("malformed requests and targets get 400", async () => {
  assert.match(await raw("NONSENSE\r\n\r\n"), /^HTTP\/1\.1 400 /);
  assert.match(await raw("GET /search?q=%zz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"), /^HTTP\/1\.1 400 /);
});

test("every response has Date and Content-Length", async () => {
  for (const path of ["/", "/nope", "/api/calc/fit?gpu=x"]) {
    const res = await raw(`GET ${path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
    assert.match(res, /\r\nDate: [A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\r\n/, path);
    assert.match(res, /\r\nContent-Length: \d+\r\n/, path);
  }
});

test("HEAD answers the length without a body", async () => {
  const res = await raw("HEAD /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
  assert.match(res, /\r\nContent-Length: 3\r\n/);
  assert.ok(res.endsWith("\r\n\r\n"), "no body after the headers");
});
