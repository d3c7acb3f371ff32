// Prometheus metrics of one server process (prometheus-cpp's core: the registry and the text
// format; the HTTP exposure is ridge's own /metrics route). Thread-safe; every method is
// callable on a const App. Labels are bounded: a route is the router's pattern
// ("/q/{slug}"), never the raw path, so a scan of random URLs adds no series.
#pragma once

#include <memory>
#include <string>

namespace ridge::web {

class Metrics {
 public:
  Metrics();
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // One answered request: by route pattern and status, with its handler latency.
  void request(const std::string& route, int status, double seconds) const;
  void in_flight(int delta) const;          // requests being handled now
  void queue_depth(double waiting) const;   // worker-pool requests waiting or running
  void signin_refused() const;              // a sign-in answered 429
  void quick_answer() const;                // a request answered by the server's quick path (also in request())
  void store_call(const std::string& operation, double seconds, bool ok) const;  // by operation and outcome
  // Registers an operation's two series (ok, error) at zero, so a scrape lists them before the first call.
  void store_operation(const std::string& operation) const;
  void store_pool(int in_use, int size) const;  // the PostgreSQL pool's connections, at a scrape
  void mail_delivery(bool sent) const;          // a message marked sent, or failed (to be retried)

  // The Prometheus text exposition format (version 0.0.4).
  std::string text() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ridge::web
