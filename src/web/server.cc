// The one translation unit that includes Boost.Beast, so the rest of the build stays fast.
#include "web/server.h"

#include <boost/asio.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <atomic>
#include <ctime>
#include <future>
#include <iostream>
#include <limits>
#include <mutex>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "account/security.h"
#include "web/hot_answers.h"
#include "web/log.h"
#include "web/quick_request.h"
#include "web/wire.h"

namespace ridge::web {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// The process's open-file limit, for the pressure check.
size_t fd_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return 1u << 20;
  return static_cast<size_t>(lim.rlim_cur);
}

struct Server::Impl {
  const App& app;
  ServerOptions options;
  std::unique_ptr<asio::thread_pool> workers;
  std::atomic<size_t> queued{0};
  std::unique_ptr<asio::thread_pool> heavy_workers;  // the heavy lane (ServerOptions::heavy_body)
  std::atomic<size_t> heavy_queued{0};
  std::atomic<size_t> open_connections{0};
  size_t pressure_at = 0;
  std::vector<Cidr> trusted;
  std::mutex per_client_mutex;
  std::map<std::string, int> per_client;
  std::atomic<int64_t> last_emfile_log{0};
  std::vector<std::unique_ptr<asio::io_context>> contexts;
  std::vector<std::unique_ptr<tcp::acceptor>> acceptors;
  std::atomic<bool> stopping{false};

  // Connections waiting for their next request: closed at once on shutdown.
  struct Connection {
    beast::tcp_stream* stream;
    std::atomic<bool> busy{false};
    std::atomic<int64_t> idle_since_ms{0};  // steady clock, when it began waiting for a request
  };
  std::atomic<int64_t> last_sweep_ms{0};

  static int64_t steady_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }

  // Under descriptor pressure, connections that went idle before it began still have the long
  // idle timeout they were given then (issue 28: with 256 descriptors and 600 idle connections,
  // /healthz waited 10 s behind them). Closes every connection idle for longer than the short
  // timeout, at most every 250 ms; the ones idle for less get the short timeout when they next
  // wait, or the next sweep.
  void sweep_idle() {
    const int64_t now = steady_ms();
    int64_t last = last_sweep_ms.load();
    if (now - last < 250 || !last_sweep_ms.compare_exchange_strong(last, now)) return;
    const int64_t cutoff = now - std::chrono::duration_cast<std::chrono::milliseconds>(options.busy_idle_timeout).count();
    std::lock_guard<std::mutex> lock(mutex);
    for (Connection* c : connections) {
      if (c->busy || c->idle_since_ms.load() > cutoff) continue;
      post_cancel_if_idle(c, cutoff);
    }
  }
  // Cancels `c`'s wait for its next request, on the connection's own executor, if it is still
  // there, idle, and idle since `cutoff` or before (INT64_MAX: any idle connection). Checked
  // again where the connection runs: between the caller's snapshot and now it may have taken a
  // request, or ended and left its address to a new connection. A connection whose next
  // request has arrived but not yet been read is not idle: it is answered (on shutdown, with
  // Connection: close). Its socket may be closed already: beast's tcp_stream closes it when the
  // idle deadline passes, before the session's read completes and leaves the set; the
  // throwing cancel() then aborted the server (CI, twice).
  void post_cancel_if_idle(Connection* c, int64_t cutoff) {
    asio::post(c->stream->get_executor(), [this, c, cutoff] {
      std::lock_guard<std::mutex> inner(mutex);
      if (!connections.count(c) || c->busy || c->idle_since_ms.load() > cutoff) return;
      beast::error_code ec;  // a closed socket has nothing waiting and nothing left to cancel
      if (c->stream->socket().available(ec) > 0 && !ec) return;
      c->stream->socket().cancel(ec);
    });
  }
  std::mutex mutex;
  std::set<Connection*> connections;

  Impl(const App& a, ServerOptions o) : app(a), options(std::move(o)) {
    for (const auto& t : options.trusted_proxies) {
      if (auto c = parse_cidr(t)) trusted.push_back(*c);
    }
  }

  bool is_trusted(const std::string& address) const {
    return std::any_of(trusted.begin(), trusted.end(), [&](const Cidr& c) { return cidr_contains(c, address); });
  }

  // Counts a connection against its client; false when the client holds its cap already.
  bool admit(const std::string& address) {
    if (options.max_connections_per_client <= 0 || is_trusted(address)) return true;
    std::lock_guard<std::mutex> lock(per_client_mutex);
    int& n = per_client[address];
    if (n >= options.max_connections_per_client) return false;
    ++n;
    return true;
  }
  void leave(const std::string& address) {
    if (options.max_connections_per_client <= 0 || is_trusted(address)) return;
    std::lock_guard<std::mutex> lock(per_client_mutex);
    auto it = per_client.find(address);
    if (it != per_client.end() && --it->second <= 0) per_client.erase(it);
  }

  // When a worker last picked up a job (steady clock, nanoseconds).
  std::atomic<int64_t> last_pickup{std::chrono::steady_clock::now().time_since_epoch().count()};

  // Why the pool cannot take work now, or empty: jobs are waiting or running and none was
  // picked up within options.ready_pickup.
  std::string pool_stalled() const {
    const size_t waiting = queued.load();
    if (waiting == 0) return {};
    const auto since = std::chrono::steady_clock::now().time_since_epoch() - std::chrono::steady_clock::duration(last_pickup.load());
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(since);
    if (ms < options.ready_pickup) return {};
    return "worker pool stalled: " + std::to_string(waiting) + " jobs waiting or running, none picked up for " +
           std::to_string(ms.count()) + " ms (bound " + std::to_string(options.ready_pickup.count()) + " ms)\n";
  }

  // Runs the handler on `pool`. `pickup`: note when a worker took it (for /readyz).
  asio::awaitable<Response> on_pool(asio::thread_pool& pool, const Request& req, const Router::Match& match, bool pickup) {
    co_return co_await asio::co_spawn(
        pool.get_executor(),
        [this, &req, &match, pickup]() -> asio::awaitable<Response> {
          if (pickup) last_pickup.store(std::chrono::steady_clock::now().time_since_epoch().count());
          // The heavy lane's threads run only what a flood of large posts sends: at the
          // hashing threads' nice value, so the I/O threads and the workers run first.
          static thread_local bool lowered = false;
          if (!pickup && !lowered) {
            account::lower_this_thread(account::kHashingNice);
            lowered = true;
          }
          co_return app.handle(req, match);
        },
        asio::use_awaitable);
  }

  asio::awaitable<Response> answer(const Request& req) {
    Router::Match match = app.route(req);  // once: the dispatch decision and the handler share it
    if (req.path == "/readyz") {
      if (std::string stalled = pool_stalled(); !stalled.empty()) {
        Response r = app.plain_error(503, stalled);
        r.set("Retry-After", "1");
        co_return r;
      }
    }
    if (app.runs_inline(req, match)) co_return app.handle(req, match);
    // A large body (a posted config) goes to the heavy lane; everything else to the workers.
    const bool heavy = req.body.size() >= options.heavy_body;
    std::atomic<size_t>& lane = heavy ? heavy_queued : queued;
    if (lane.fetch_add(1) >= (heavy ? options.heavy_queue : options.max_queue)) {
      const size_t left = lane.fetch_sub(1) - 1;
      if (!heavy) app.metrics().queue_depth(static_cast<double>(left));
      Response busy = app.plain_error(503, heavy ? "the server is busy with large requests; try again in a second"
                                                 : "the server is busy; try again in a second");
      busy.set("Retry-After", "1");
      co_return busy;
    }
    if (!heavy) app.metrics().queue_depth(static_cast<double>(queued.load()));
    // The handler may block (argon2id, a store round trip, a search): it runs on a worker
    // and this connection's I/O thread serves others meanwhile. (One co_await of on_pool for
    // both lanes: with two, GCC 12 reports a mismatched new/delete in this coroutine's frame.)
    Response res = co_await on_pool(heavy ? *heavy_workers : *workers, req, match, !heavy);
    const size_t left = lane.fetch_sub(1) - 1;
    if (!heavy) app.metrics().queue_depth(static_cast<double>(left));
    co_return res;
  }

  // Sends what the socket takes now of `head` (from `head_sent`, with MSG_MORE so head and file
  // leave in full packets), then `file`'s bytes by sendfile(2) from `offset`. True when all is
  // sent; false with `ec` clear when the socket is full (the caller waits for room), or with
  // `ec` set on a failure. No timer and no coroutine: most responses go at once.
  static bool send_file_now(tcp::socket& s, const std::string& head, const BodyFile& file, size_t& head_sent, off_t& offset,
                            beast::error_code& ec) {
    // Asio made the descriptor non-blocking at its first asynchronous operation; setting it
    // again would cost an ioctl per response (strace: one FIONBIO per request on this path).
    if (!s.native_non_blocking()) {
      s.native_non_blocking(true, ec);
      if (ec) return false;
    }
    while (head_sent < head.size()) {
      ssize_t n = ::send(s.native_handle(), head.data() + head_sent, head.size() - head_sent, MSG_MORE | MSG_NOSIGNAL);
      if (n > 0) {
        head_sent += static_cast<size_t>(n);
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return false;
      } else {
        ec = beast::error_code(errno, beast::system_category());
        return false;
      }
    }
    while (static_cast<size_t>(offset) < file.size) {
      ssize_t n = ::sendfile(s.native_handle(), file.fd, &offset, file.size - static_cast<size_t>(offset));
      if (n > 0 || (n < 0 && errno == EINTR)) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
      ec = n == 0 ? beast::error_code(asio::error::eof) : beast::error_code(errno, beast::system_category());
      return false;
    }
    return true;
  }

  // The rest of a response by sendfile once the socket is full (send_file_now returned false
  // without an error): each wait for room bounded by the read timeout, as the stream's deadline
  // bounds the write it replaces.
  asio::awaitable<void> finish_file(tcp::socket& s, const std::string& head, const BodyFile& file, size_t head_sent, off_t offset,
                                    beast::error_code& ec) {
    using namespace asio::experimental::awaitable_operators;
    asio::steady_timer deadline(s.get_executor());
    for (;;) {
      deadline.expires_after(options.read_timeout);
      beast::error_code wait_ec, timer_ec;
      auto which = co_await (s.async_wait(tcp::socket::wait_write, asio::redirect_error(asio::use_awaitable, wait_ec)) ||
                             deadline.async_wait(asio::redirect_error(asio::use_awaitable, timer_ec)));
      if (which.index() == 1) {
        ec = beast::error::timeout;
        co_return;
      }
      if (wait_ec) {
        ec = wait_ec;
        co_return;
      }
      if (send_file_now(s, head, file, head_sent, offset, ec) || ec) co_return;
    }
  }

  // Writes a response, on both paths: a body held in a memory file by sendfile, any other in one
  // gathered send with the head; what the socket does not take at once waits for room, each wait
  // bounded by the read timeout.
  asio::awaitable<void> write_response(beast::tcp_stream& stream, const std::string& head, std::string_view body,
                                       const BodyFile* file, beast::error_code& ec) {
    if (file != nullptr) {
      size_t head_sent = 0;
      off_t offset = 0;
      if (!send_file_now(stream.socket(), head, *file, head_sent, offset, ec) && !ec) {
        co_await finish_file(stream.socket(), head, *file, head_sent, offset, ec);
      }
      co_return;
    }
    const size_t done = send_gathered(stream.socket().native_handle(), head, body, ec);
    if (ec || done == head.size() + body.size()) co_return;
    const size_t from_head = std::min(done, head.size());
    std::array<asio::const_buffer, 2> rest = {asio::buffer(head.data() + from_head, head.size() - from_head),
                                              asio::buffer(body.substr(done - from_head))};
    stream.expires_after(options.read_timeout);
    co_await asio::async_write(stream, rest, asio::redirect_error(asio::use_awaitable, ec));
  }

  asio::awaitable<void> session(tcp::socket socket) {
    beast::error_code addr_ec;
    auto remote_endpoint = socket.remote_endpoint(addr_ec);
    std::string peer = addr_ec ? std::string() : remote_endpoint.address().to_string();
    if (!admit(peer)) {
      // Over the per-client cap: refuse at once rather than hold a descriptor.
      socket.close(addr_ec);
      co_return;
    }
    ++open_connections;
    beast::tcp_stream stream(std::move(socket));
    beast::flat_buffer buffer;
    std::string head;
    head.reserve(1024);
    Connection conn;
    conn.stream = &stream;
    // Idle from now, before the sweep can see it (it read 0 here once and closed a new /healthz).
    conn.idle_since_ms = steady_ms();
    {
      std::lock_guard<std::mutex> lock(mutex);
      connections.insert(&conn);
    }
    beast::error_code ec;
    bool linger = false;  // the client may still be sending what we refused
    // /metrics alone on this listener: every request is checked by the full path.
    const bool quick = options.quick && options.metrics != MetricsRoute::kOnly;
    for (;;) {
      // Idle: wait for the first bytes of the next request.
      if (buffer.size() == 0) {
        if (stopping) break;
        // Under descriptor pressure an idle keep-alive connection waits much less.
        stream.expires_after(open_connections.load() > pressure_at ? options.busy_idle_timeout : options.idle_timeout);
        conn.idle_since_ms = steady_ms();
        size_t n = co_await stream.async_read_some(buffer.prepare(8192), asio::redirect_error(asio::use_awaitable, ec));
        if (ec) break;
        buffer.commit(n);
      }
      conn.busy = true;
      if (quick) {
        // The quick path: a complete anonymous GET already read, whose answer is prepared.
        const auto bytes = buffer.data();
        QuickRequest q;
        if (quick_parse(std::string_view(static_cast<const char*>(bytes.data()), bytes.size()), options.header_limit, q)) {
          const auto started = std::chrono::steady_clock::now();
          HotAnswers::Hit hit = app.hot_answer(q.target);
          if (hit.answer != nullptr) {
            const bool keep = !q.close && !stopping;
            const BodyFile* file = nullptr;
            const log::RequestId id = log::next_request_id_fixed();
            std::string_view body = quick_head(*hit.answer, q.accepts_gzip, keep, id.view(), head, file);
            // Counted as App::handle counts the others: the time to the answer, before the write.
            app.count_quick(*hit.answer, q.path, body.size(), started, id.view());
            buffer.consume(q.length);  // the views into it are not read past here
            co_await write_response(stream, head, body, file, ec);
            conn.busy = false;
            if (ec || !keep) break;
            continue;
          }
        }
      }
      http::request_parser<http::string_body> parser;
      parser.header_limit(static_cast<std::uint32_t>(options.header_limit));
      parser.body_limit(options.body_limit);
      stream.expires_after(options.read_timeout);
      co_await http::async_read(stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
      Response res;
      bool keep_alive = false;
      linger = false;
      unsigned version = 11;
      if (ec == http::error::body_limit) {
        // In the words the home widget uses for an upload it refuses itself (issue 33 item 5).
        res = app.plain_error(413, "request body larger than " + limit_in_words(options.body_limit));
        linger = true;
      } else if (ec == http::error::header_limit) {
        res = app.plain_error(431, "request headers larger than " + std::to_string(options.header_limit) + " bytes");
        linger = true;
      } else if (ec == beast::error::timeout || ec == http::error::end_of_stream || ec == asio::error::eof ||
                 ec == asio::error::connection_reset || ec == asio::error::operation_aborted) {
        break;
      } else if (ec) {
        res = app.plain_error(400, "malformed request: " + ec.message());
      } else {
        auto& msg = parser.get();
        version = msg.version();
        keep_alive = msg.keep_alive() && !stopping;
        std::string framing = framing_error(msg);
        Request req = to_request(msg);
        req.remote = peer;
        if (!framing.empty()) {
          res = app.plain_error(400, framing);
          keep_alive = false;  // what follows on this connection cannot be trusted
        } else if (!parse_target(req.target, req)) {
          res = app.plain_error(400, "malformed request target (a path with valid %-escapes is expected)");
        } else if (options.metrics != MetricsRoute::kHere && (req.path == "/metrics") != (options.metrics == MetricsRoute::kOnly)) {
          res = app.plain_error(404, options.metrics == MetricsRoute::kOnly ? "this listener serves /metrics only"
                                                                             : "There is no page at /metrics.");
        } else {
          res = co_await answer(req);
        }
      }
      serialize_head(res, version, keep_alive, head);
      std::string_view body = res.head_only || res.status == 304 ? std::string_view() : res.view();
      // A large cached body goes by sendfile from its memory file, if the body is still its bytes.
      const bool by_file = res.file != nullptr && !body.empty() && body.data() == res.file->data && body.size() == res.file->size;
      co_await write_response(stream, head, body, by_file ? res.file : nullptr, ec);
      conn.busy = false;
      if (ec || !keep_alive) break;
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      connections.erase(&conn);
    }
    --open_connections;
    leave(peer);
    stream.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (linger) {
      // Lingering close: read and drop what the client is still sending (bounded in bytes and
      // time), so closing does not reset the connection before it has read our 413 or 431.
      std::array<char, 16384> scratch;
      size_t drained = 0;
      stream.expires_after(std::chrono::seconds(2));
      while (drained < (8u << 20)) {
        size_t n = co_await stream.async_read_some(asio::buffer(scratch), asio::redirect_error(asio::use_awaitable, ec));
        if (ec) break;
        drained += n;
      }
    }
    stream.close();
  }

  asio::awaitable<void> listen(tcp::acceptor& acceptor) {
    for (;;) {
      beast::error_code ec;
      // With a shared io_context each connection runs on its own strand, so the shutdown's
      // posted cancel never races the session; with one io_context per thread the thread is
      // the strand already, and the strand's locking would cost a tenth of the throughput.
      // (Two statements, not a conditional expression: GCC 12 miscompiles co_await inside ?:.)
      tcp::socket socket(acceptor.get_executor());
      if (options.io == IoModel::kShared) {
        socket = co_await acceptor.async_accept(asio::make_strand(acceptor.get_executor()),
                                                asio::redirect_error(asio::use_awaitable, ec));
      } else {
        socket = co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
      }
      if (ec) {
        if (stopping || ec == asio::error::operation_aborted) co_return;
        if (ec == asio::error::no_descriptors || ec.value() == ENFILE || ec == asio::error::no_buffer_space ||
            ec == asio::error::no_memory) {
          // Out of descriptors: retrying at once spins a core. Log (once a second), back off,
          // and let the shortened idle timeout free descriptors.
          int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::steady_clock::now().time_since_epoch()).count();
          if (last_emfile_log.exchange(now_s) != now_s) {
            std::cerr << "ridge serve: accept: " << ec.message() << " (" << open_connections.load()
                      << " connections open); backing off\n";
          }
          sweep_idle();
          asio::steady_timer backoff(acceptor.get_executor(), std::chrono::milliseconds(50));
          co_await backoff.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
        continue;
      }
      socket.set_option(tcp::no_delay(true), ec);
      if (open_connections.load() > pressure_at) sweep_idle();
      auto executor = socket.get_executor();
      asio::co_spawn(executor, session(std::move(socket)), asio::detached);
    }
  }

  void begin_shutdown() {
    if (stopping.exchange(true)) return;
    for (auto& a : acceptors) {
      asio::post(a->get_executor(), [acc = a.get()] {
        beast::error_code ec;
        acc->close(ec);
      });
    }
    std::lock_guard<std::mutex> lock(mutex);
    for (Connection* c : connections) {
      if (c->busy) continue;  // it finishes its request and closes
      post_cancel_if_idle(c, std::numeric_limits<int64_t>::max());
    }
  }
};

Server::Server(const App& app, ServerOptions options) : impl_(std::make_unique<Impl>(app, std::move(options))) {}
Server::~Server() {
  if (abandoned_) (void)impl_.release();  // its workers may still run; joining them would hang
}

void Server::stop() { impl_->begin_shutdown(); }

int Server::run() {
  Impl& s = *impl_;
  int threads = s.options.threads > 0 ? s.options.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int contexts = s.options.io == IoModel::kPerThread ? threads : 1;
  int worker_count = s.options.workers > 0 ? s.options.workers : std::max(16, 2 * threads);
  s.workers = std::make_unique<asio::thread_pool>(static_cast<size_t>(worker_count));
  const int heavy_count = s.options.heavy_workers > 0 ? s.options.heavy_workers : std::max(1, threads - 1);
  s.heavy_workers = std::make_unique<asio::thread_pool>(static_cast<size_t>(heavy_count));
  s.pressure_at = static_cast<size_t>(static_cast<double>(fd_limit()) * s.options.pressure_share);
  beast::error_code ec;
  auto address = asio::ip::make_address(s.options.bind, ec);
  if (ec) {
    std::cerr << "ridge serve: --bind '" << s.options.bind << "' is not an IP address\n";
    return 1;
  }
  unsigned short port = s.options.port;
  if (contexts > 1 && port != 0) {
    // SO_REUSEPORT would let a second ridge share the port of one already running and split
    // its traffic silently: bind once without it first, so a port in use is an error.
    asio::io_context probe_context;
    tcp::acceptor check(probe_context);
    check.open(address.is_v6() ? tcp::v6() : tcp::v4(), ec);
    // SO_REUSEADDR as the real listeners have: a port held only by connections in TIME_WAIT
    // (after a restart) is free; a port another process listens on is still refused.
    if (!ec) check.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) check.bind(tcp::endpoint(address, port), ec);
    if (ec) {
      std::cerr << "ridge serve: cannot listen on " << s.options.bind << ":" << port << ": " << ec.message() << "\n";
      return 1;
    }
  }
  for (int i = 0; i < contexts; ++i) {
    // Per thread: only this context's thread starts socket operations (shutdown posts its
    // cancels here; workers only post completions), so the per-descriptor locks can go; the
    // scheduler and timer registration stay locked (workers post to them).
    s.contexts.push_back(std::make_unique<asio::io_context>(
        s.options.io == IoModel::kPerThread ? static_cast<int>(BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO) : threads));
    auto acceptor = std::make_unique<tcp::acceptor>(*s.contexts.back());
    tcp::endpoint endpoint(address, port);
    acceptor->open(endpoint.protocol(), ec);
    if (!ec) acceptor->set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec && contexts > 1) {
      int one = 1;
      ::setsockopt(acceptor->native_handle(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    }
    if (!ec) acceptor->bind(endpoint, ec);
    if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      std::cerr << "ridge serve: cannot listen on " << s.options.bind << ":" << port << ": " << ec.message() << "\n";
      return 1;
    }
    port = acceptor->local_endpoint().port();  // with port 0, the others share the first's
    s.acceptors.push_back(std::move(acceptor));
  }
  for (int i = 0; i < contexts; ++i) {
    asio::co_spawn(*s.contexts[static_cast<size_t>(i)], s.listen(*s.acceptors[static_cast<size_t>(i)]), asio::detached);
  }
  // Signals and the shutdown watchdog live on the first context.
  asio::io_context& first = *s.contexts.front();
  asio::signal_set signals(first);
  if (s.options.handle_signals) {
    signals.add(SIGINT);
    signals.add(SIGTERM);
    signals.async_wait([&](beast::error_code e, int) {
      if (!e) s.begin_shutdown();
    });
  }
  asio::steady_timer watchdog(first);
  auto deadline = std::make_shared<std::chrono::steady_clock::time_point>();
  std::function<void()> poll = [&] {
    watchdog.expires_after(std::chrono::milliseconds(20));
    watchdog.async_wait([&](beast::error_code e) {
      if (e) return;
      if (!s.stopping) {
        poll();
        return;
      }
      if (*deadline == std::chrono::steady_clock::time_point{}) *deadline = std::chrono::steady_clock::now() + s.options.shutdown_grace;
      bool drained;
      {
        std::lock_guard<std::mutex> lock(s.mutex);
        drained = s.connections.empty();
      }
      if (drained || std::chrono::steady_clock::now() >= *deadline) {
        signals.cancel();
        for (auto& c : s.contexts) c->stop();
        return;
      }
      poll();
    });
  };
  poll();
  if (s.options.on_listening) s.options.on_listening(port);
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) {
    asio::io_context& ctx = *s.contexts[static_cast<size_t>(i % contexts)];
    if (i == 0) continue;
    pool.emplace_back([&ctx] { ctx.run(); });
  }
  s.contexts.front()->run();
  for (auto& t : pool) t.join();
  // The workers get what is left of the grace (and at least a second): a request stuck past it
  // no longer holds the process (issue 28).
  auto left = *deadline == std::chrono::steady_clock::time_point{} ? std::chrono::steady_clock::duration(s.options.shutdown_grace)
                                                                    : *deadline - std::chrono::steady_clock::now();
  left = std::max<std::chrono::steady_clock::duration>(left, std::chrono::seconds(1));
  auto joined = std::make_shared<std::promise<void>>();
  auto done = joined->get_future();
  std::thread joiner([workers = s.workers.get(), heavy = s.heavy_workers.get(), joined] {
    workers->join();
    heavy->join();
    joined->set_value();
  });
  if (done.wait_for(left) == std::future_status::timeout) {
    joiner.detach();
    abandoned_ = true;
    std::cerr << "ridge serve: requests still running after the " << s.options.shutdown_grace.count()
              << " s shutdown grace; stopping without them" << std::endl;
    return kAbandonedWork;
  }
  joiner.join();
  return 0;
}

}  // namespace ridge::web
