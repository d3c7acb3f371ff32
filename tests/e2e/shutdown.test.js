// Graceful shutdown: a request in flight when SIGTERM arrives is still answered, new
// connections are refused, and the process exits 0.
import { test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { startServer } from "./server.js";

function connect(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => resolve(socket));
    socket.on("error", reject);
  });
}

test("a request in flight survives SIGTERM", async () => {
  const server = await startServer();
  const socket = await connect(server.url);
  let response = "";
  socket.on("data", (d) => { response += d; });
  const closed = new Promise((resolve) => socket.on("close", resolve));
  // A whole request first, so the server has accepted this connection (conditions, not
  // sleeps: fixed 200 and 300 ms waits race a loaded machine).
  socket.write("GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n");
  while (!/\r\n\r\nok\n$/.test(response)) await new Promise((r) => socket.once("data", r));
  response = "";
  // Then half a request, in the server's socket buffer before the signal.
  await new Promise((r) => socket.write("GET /healthz HTTP/1.1\r\nHost: test\r\n", r));
  server.child.kill("SIGTERM");
  // New connections are refused once the acceptors have closed (within 5 s).
  let refused = false;
  for (let i = 0; i < 100 && !refused; ++i) {
    try {
      (await connect(server.url)).destroy();
      await new Promise((r) => setTimeout(r, 50));
    } catch {
      refused = true;
    }
  }
  assert.ok(refused, "new connections are refused after SIGTERM");
  socket.write("\r\n");
  await closed;
  assert.match(response, /^HTTP\/1\.1 200 OK/);
  assert.match(response, /Connection: close/i);
  assert.match(response, /\r\n\r\nok\n$/);
  const result = await server.exited;
  assert.equal(result.code, 0);
});

test("idle keep-alive connections do not hold the shutdown", async () => {
  const server = await startServer();
  const socket = await connect(server.url);
  socket.write("GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n");
  await new Promise((r) => socket.once("data", r));
  const started = Date.now();
  server.child.kill("SIGTERM");
  const result = await server.exited;
  assert.equal(result.code, 0);
  assert.ok(Date.now() - started < 2000, "exited in " + (Date.now() - started) + " ms");
  socket.destroy();
});
