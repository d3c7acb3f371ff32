#include "web/metrics.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <atomic>
#include <map>
#include <string_view>
#include <tuple>

namespace ridge::web {

struct Metrics::Impl {
  // Distinguishes this registry in the per-thread caches below (an address can be reused).
  const uint64_t id = [] {
    static std::atomic<uint64_t> next{1};
    return next++;
  }();
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  prometheus::Family<prometheus::Counter>& requests =
      prometheus::BuildCounter().Name("ridge_http_requests_total").Help("HTTP requests answered, by route and status").Register(*registry);
  prometheus::Family<prometheus::Histogram>& latency = prometheus::BuildHistogram()
                                                           .Name("ridge_http_request_duration_seconds")
                                                           .Help("Time to answer a request in the application, by route")
                                                           .Register(*registry);
  prometheus::Gauge& in_flight = prometheus::BuildGauge()
                                     .Name("ridge_http_requests_in_flight")
                                     .Help("Requests being handled now")
                                     .Register(*registry)
                                     .Add({});
  prometheus::Gauge& queue = prometheus::BuildGauge()
                                 .Name("ridge_worker_queue_depth")
                                 .Help("Requests on the worker pool, waiting or running")
                                 .Register(*registry)
                                 .Add({});
  prometheus::Counter& quick = prometheus::BuildCounter()
                                   .Name("ridge_http_quick_answers_total")
                                   .Help("Requests answered by the quick path: an anonymous GET of a prepared answer")
                                   .Register(*registry)
                                   .Add({});
  prometheus::Counter& refused = prometheus::BuildCounter()
                                     .Name("ridge_signin_refusals_total")
                                     .Help("Sign-ins refused by the rate limits (429)")
                                     .Register(*registry)
                                     .Add({});
  prometheus::Family<prometheus::Histogram>& store = prometheus::BuildHistogram()
                                                         .Name("ridge_store_call_duration_seconds")
                                                         .Help("Store calls, by operation and outcome")
                                                         .Register(*registry);
  prometheus::Family<prometheus::Gauge>& pool =
      prometheus::BuildGauge().Name("ridge_store_pool_connections").Help("PostgreSQL pool connections, in use and in all").Register(*registry);
  prometheus::Family<prometheus::Counter>& mail = prometheus::BuildCounter()
                                                      .Name("ridge_mail_deliveries_total")
                                                      .Help("Messages delivered (sent) or not (failed, to be retried) by this process")
                                                      .Register(*registry);
};

namespace {
const prometheus::Histogram::BucketBoundaries& buckets() {
  static const prometheus::Histogram::BucketBoundaries kBuckets = {0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                                   0.05,   0.1,    0.25,  0.5,    1,     2.5,   5};
  return kBuckets;
}
}  // namespace

Metrics::Metrics() : impl_(std::make_unique<Impl>()) {
  // At zero from the start, so a scrape shows them before the first delivery.
  impl_->mail.Add({{"outcome", "sent"}});
  impl_->mail.Add({{"outcome", "failed"}});
}
Metrics::~Metrics() = default;

void Metrics::request(const std::string& route, int status, double seconds) const {
  // Family::Add takes the family's lock and hashes the labels; on the request path each
  // thread keeps the series it has seen, so a request costs two atomic updates.
  struct Series {
    prometheus::Counter* count;
    prometheus::Histogram* latency;
  };
  // Looked up by a view of the route (std::less<>): no copy of a long pattern per request.
  thread_local std::map<std::tuple<uint64_t, std::string, int>, Series, std::less<>> seen;
  auto it = seen.find(std::make_tuple(impl_->id, std::string_view(route), status));
  if (it == seen.end()) {
    Series series{&impl_->requests.Add({{"route", route}, {"status", std::to_string(status)}}),
                  &impl_->latency.Add({{"route", route}}, buckets())};
    it = seen.emplace(std::make_tuple(impl_->id, route, status), series).first;
  }
  it->second.count->Increment();
  it->second.latency->Observe(seconds);
}

void Metrics::in_flight(int delta) const { impl_->in_flight.Increment(delta); }
void Metrics::queue_depth(double waiting) const { impl_->queue.Set(waiting); }
void Metrics::signin_refused() const { impl_->refused.Increment(); }
void Metrics::quick_answer() const { impl_->quick.Increment(); }

void Metrics::store_call(const std::string& operation, double seconds, bool ok) const {
  // Cached per thread like request()'s series.
  thread_local std::map<std::tuple<uint64_t, std::string, bool>, prometheus::Histogram*> seen;
  auto key = std::make_tuple(impl_->id, operation, ok);
  auto it = seen.find(key);
  if (it == seen.end()) {
    it = seen.emplace(std::move(key), &impl_->store.Add({{"operation", operation}, {"outcome", ok ? "ok" : "error"}}, buckets())).first;
  }
  it->second->Observe(seconds);
}

void Metrics::store_operation(const std::string& operation) const {
  impl_->store.Add({{"operation", operation}, {"outcome", "ok"}}, buckets());
  impl_->store.Add({{"operation", operation}, {"outcome", "error"}}, buckets());
}

void Metrics::store_pool(int in_use, int size) const {
  impl_->pool.Add({{"state", "in_use"}}).Set(in_use);
  impl_->pool.Add({{"state", "total"}}).Set(size);
}

void Metrics::mail_delivery(bool sent) const { impl_->mail.Add({{"outcome", sent ? "sent" : "failed"}}).Increment(); }

std::string Metrics::text() const { return prometheus::TextSerializer().Serialize(impl_->registry->Collect()); }

}  // namespace ridge::web
