#include "mail/sender.h"

#include <algorithm>
#include <iostream>

namespace ridge::mail {
namespace {

constexpr int kBatch = 5;
// Longer than a batch can take (5 messages, 40 s of SMTP timeouts each): a lease that ran
// out while its holder still works would let another sender deliver the same message.
constexpr int64_t kLeaseSeconds = 300;

// "a***@example.com": enough to follow a message in the log, not a list of addresses.
std::string masked(const std::string& address) {
  size_t at = address.find('@');
  if (at == std::string::npos || at == 0) return "***";
  return address.substr(0, 1) + "***" + address.substr(at);
}

}  // namespace

Sender::Sender(store::Store& store, MailConfig config, const account::Clock& clock)
    : store_(store), config_(std::move(config)), clock_(clock) {}

Sender::~Sender() { stop(); }

int64_t Sender::backoff(int base_seconds, int failures) {
  int64_t delay = base_seconds;
  for (int i = 1; i < failures && delay < 3600; ++i) delay *= 2;
  return std::min<int64_t>(delay, 3600);
}

Sender::Pass Sender::run_once() {
  Pass pass;
  for (int round = 0; round < 1000; ++round) {
    auto batch = store_.claim_mail(clock_.now(), kLeaseSeconds, kBatch);
    if (!batch.ok()) {
      std::cerr << "ridge mail: cannot read the queue: " << batch.error().detail << "\n";
      pass.store_error = true;
      return pass;
    }
    if (batch->empty()) return pass;
    for (const auto& m : *batch) {
      std::string why = deliver(config_, m.id, m.recipient, m.message);
      if (why.empty()) {
        auto done = store_.mail_sent(m.id, clock_.now());
        if (!done.ok()) std::cerr << "ridge mail: message " << m.id << " was sent but not marked: " << done.error().detail << "\n";
        ++pass.sent;
        continue;
      }
      int failures = m.attempts + 1;
      int64_t delay = backoff(config_.retry_base_seconds, failures);
      std::cerr << "ridge mail: message " << m.id << " to " << masked(m.recipient) << " failed (attempt " << failures << "): " << why
                << "; retry in " << delay << " s\n";
      auto marked = store_.mail_failed(m.id, clock_.now() + delay, why.substr(0, 500));
      if (!marked.ok()) std::cerr << "ridge mail: cannot record the failure: " << marked.error().detail << "\n";
      ++pass.failed;
    }
  }
  return pass;
}

void Sender::start() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { loop(); });
}

void Sender::wake() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    woken_ = true;
  }
  cv_.notify_all();
}

void Sender::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Sender::loop() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait_for(lock, std::chrono::seconds(config_.poll_seconds), [&] { return stop_ || woken_; });
      if (stop_) return;
      woken_ = false;
    }
    try {
      run_once();
    } catch (const std::exception& e) {
      std::cerr << "ridge mail: sender error: " << e.what() << "\n";
    }
  }
}

}  // namespace ridge::mail
