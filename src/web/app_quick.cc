// The App's side of the server's quick path (web/quick_request.h, web/hot_answers.h): which
// answers are prepared, and how a quick answer is counted.
#include <chrono>
#include <span>
#include <string>

#include "web/app.h"
#include "web/log.h"

namespace ridge::web {

// The longest target kept (bytes): real pages, calculator calls and searches are far shorter.
constexpr size_t kMaxHotTarget = 1024;

void App::prepare_hot(const Request& req, const Router::Match& match, const Response& res, const PlainPage& plain) const {
  // What the quick path takes (a GET without a cookie or a condition) and what the handler
  // answered to it: a 200 that depends on nothing else.
  if (req.method != "GET" || match.pattern == nullptr || res.status != 200) return;
  // A long target is not kept: endless distinct long queries would otherwise hold up to the
  // table's entries times the header limit (8,192 x 16 KiB) in every I/O thread's copy.
  if (req.target.size() > kMaxHotTarget) return;
  if (req.headers.count("cookie") || req.headers.count("if-none-match")) return;
  // Already prepared (a request the quick path left to the full path, or the quick path off):
  // nothing to build again. An entry whose cache let its answer go is a miss, prepared anew.
  if (hot_->find(req.target).answer != nullptr) return;
  auto answer = std::make_shared<HotAnswer>();
  answer->target = req.target;
  answer->route = match.pattern;
  if (res.prebuilt_headers != nullptr) {
    if (res.held_body != nullptr || res.shared_body == nullptr) return;
    if (res.personal) {
      // A locked page every anonymous visitor gets: its personal block was prepared with it.
      if (res.prebuilt_headers != res.prebuilt_personal_headers) return;
      answer->head = res.prebuilt_headers;
      answer->body = res.shared_body;
      answer->file = res.file;
    } else {
      answer->head = plain.head;
      answer->body = plain.body;
      answer->file = plain.file;
      if (res.gzip != nullptr) {
        answer->gzip_head = &res.gzip->head;
        answer->gzip_body = &res.gzip->body;
      }
      if (answer->body == nullptr || answer->head == nullptr) return;
    }
    if (res.owner != nullptr) {
      answer->owner = res.owner;
      answer->owned = true;
    }
  } else {
    // A kept calculator or search answer: its header lines as the server writes them, the
    // request id (handle() sets it last) left for the quick path to fill in.
    if (res.held_body == nullptr || res.personal || res.headers.empty() || res.headers.back().first != "X-Request-Id") return;
    append_header_lines(answer->own_head, res.content_type, std::span(res.headers).first(res.headers.size() - 1));
    append_content_length(answer->own_tail, res.held_body->size());
    answer->head = &answer->own_head;
    answer->request_id = true;
    answer->body = res.held_body.get();
    answer->owner = res.held_body;
    answer->owned = true;
  }
  hot_->insert(std::move(answer));
}

void App::count_quick(const HotAnswer& answer, std::string_view path, uint64_t bytes,
                      std::chrono::steady_clock::time_point started, std::string_view request_id) const {
  const int64_t micros =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count();
  metrics_.request(*answer.route, 200, static_cast<double>(micros) * 1e-6);
  metrics_.quick_answer();
  log::access({"GET", path, 200, bytes, micros, request_id});
}

}  // namespace ridge::web
