// Delivers the store's mail queue: claims due messages (a lease, so two processes never
// take the same one), delivers each, and marks it sent, or failed with a retry time that
// doubles from the configured base up to an hour. A failure is logged and retried; a
// message is never dropped. Runs as a thread in `ridge serve` and inline in `ridge mail`.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

#include "account/clock.h"
#include "mail/mail.h"
#include "store/store.h"

namespace ridge::mail {

class Sender {
 public:
  Sender(store::Store& store, MailConfig config, const account::Clock& clock);
  ~Sender();
  Sender(const Sender&) = delete;
  Sender& operator=(const Sender&) = delete;

  struct Pass {
    int sent = 0, failed = 0;
    bool store_error = false;
  };
  // Delivers what is due now, in batches, until nothing is due. Thread-safe.
  Pass run_once();

  // The background thread: a pass every poll interval, or at once after wake().
  void start();
  void wake();
  void stop();  // waits for the pass in progress

  // The delay before retry number `failures` (1, 2, ...): base * 2^(failures-1), at most an hour.
  static int64_t backoff(int base_seconds, int failures);

 private:
  void loop();

  store::Store& store_;
  MailConfig config_;
  const account::Clock& clock_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false, woken_ = false;
  std::thread thread_;
};

}  // namespace ridge::mail
