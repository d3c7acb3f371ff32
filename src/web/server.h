// The HTTP/1.1 server: Boost.Beast and Asio with C++20 coroutines. It only does I/O:
// every request goes to App::handle. Keep-alive, read and idle timeouts, limits on header
// and body size, Date and Content-Length on every response, graceful shutdown on SIGTERM
// and SIGINT (stop accepting, let requests in flight finish within the grace period, exit).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "web/app.h"

namespace ridge::web {

enum class IoModel {
  kPerThread,  // one io_context and one SO_REUSEPORT acceptor per thread (the default: faster, see bench/README.md)
  kShared,     // one io_context run by every thread, one acceptor
};

// Where a listener answers /metrics: with every other route (kHere), not at all because a
// separate listener does (kElsewhere), or alone (kOnly: `--metrics-bind`'s listener, 404 for
// any other path).
enum class MetricsRoute { kHere, kElsewhere, kOnly };

struct ServerOptions {
  std::string bind = "127.0.0.1";
  unsigned short port = 8080;  // 0 picks a free port (tests)
  int threads = 0;             // 0: one per core
  IoModel io = IoModel::kPerThread;
  size_t header_limit = 16 * 1024;
  size_t body_limit = 1024 * 1024;
  std::chrono::seconds read_timeout{30};   // to receive a whole request once it has started
  std::chrono::seconds idle_timeout{60};   // between requests on a kept-alive connection
  std::chrono::seconds shutdown_grace{10};
  bool handle_signals = true;
  // Handlers that may block (password hashing, the store, search) run on this many worker
  // threads (0: two per core, at least 16: most of them wait on the store, where concurrent
  // commits share an fsync; password hashing takes one core each, at most one per core at
  // once); at most `max_queue` wait, then 503.
  int workers = 0;
  size_t max_queue = 1024;
  // /readyz answers 503 at once, on the I/O thread, when work is waiting or running on the pool
  // and no worker has picked up a job for this long: a load balancer then stops sending traffic
  // to a server whose workers are all stuck (/healthz, the liveness probe, stays 200).
  std::chrono::milliseconds ready_pickup{1000};
  // The heavy lane (issue 28): a request whose body is at least `heavy_body` bytes (a posted
  // config.json; real ones are 1-5 KB) is parsed and computed on a pool of its own,
  // `heavy_workers` threads (0: one fewer than the I/O threads, at least one), so a flood of
  // big posts keeps a core free for everyone else. At most `heavy_queue` wait or run there;
  // beyond, 503 with Retry-After.
  size_t heavy_body = 8192;
  int heavy_workers = 0;
  size_t heavy_queue = 32;
  // Connections one client address may hold open at once (0: no cap). Not applied to
  // trusted proxies, which carry many clients.
  int max_connections_per_client = 128;
  std::vector<std::string> trusted_proxies;
  // Above this share of the process's file-descriptor limit, idle keep-alive connections
  // get `busy_idle_timeout` instead of `idle_timeout`.
  double pressure_share = 0.7;
  std::chrono::milliseconds busy_idle_timeout{2000};
  MetricsRoute metrics = MetricsRoute::kHere;
  // The quick path (web/quick_request.h): an anonymous GET whose answer the App has prepared
  // (web/hot_answers.h) skips Beast's parser, the router and the handler. Off: every request
  // takes the full path (the benchmarks' reference, the tests that compare the two).
  bool quick = true;
  std::function<void(unsigned short port)> on_listening;  // called once the sockets accept
};

class Server {
 public:
  Server(const App& app, ServerOptions options);
  ~Server();

  // Serves until a signal (or stop()), then shuts down gracefully: no new connections, idle
  // ones closed, requests in flight given `shutdown_grace` to finish. Returns the exit code:
  // 0 after a clean shutdown, 1 when it could not listen (the message is on stderr), or
  // kAbandonedWork when requests were still running on workers at the end of the grace (issue
  // 28: SIGTERM waited 32 s for one stuck request against a documented 10 s). Then the workers
  // are left running and the server's state is kept alive for them (never freed): the caller
  // should end the process (std::_Exit) rather than wait on anything they may hold.
  static constexpr int kAbandonedWork = 3;
  int run();
  // Starts the graceful shutdown from any thread.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool abandoned_ = false;  // workers outlived the grace: ~Server leaks impl_ rather than join them
};

}  // namespace ridge::web
