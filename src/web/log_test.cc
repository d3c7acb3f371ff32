// The access and error logs: what a line holds, that input cannot forge a line, and that a
// handler's exception is logged with its request id and answered 500.
#include "web/log.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>
#include <vector>
#include <stdexcept>

#include "bank/loader.h"
#include "calc/test_catalog.h"
#include "web/app.h"
#include "calc/source_dir.h"

namespace ridge::web {
namespace {

class LogTest : public ::testing::Test {
 protected:
  void use(log::Format format, bool access = true) {
    out_.str("");
    log::configure({format, access, /*async=*/false}, std::make_shared<spdlog::sinks::ostream_sink_mt>(out_));
  }
  std::vector<std::string> lines() {
    log::flush();
    std::vector<std::string> v;
    std::istringstream in(out_.str());
    for (std::string l; std::getline(in, l);) v.push_back(l);
    return v;
  }
  void TearDown() override { log::configure({log::Format::kText, /*access=*/false, /*async=*/false}); }
  std::ostringstream out_;
};

TEST_F(LogTest, AnAccessLineHoldsEveryField) {
  use(log::Format::kText);
  log::access({"GET", "/q/kv-cache", 200, 5120, 85, "0000abcd-00000001"});
  auto v = lines();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find(" GET /q/kv-cache 200 5120B 85us id=0000abcd-00000001"), std::string::npos) << v[0];
  EXPECT_EQ(v[0].find('T'), 10u) << v[0];  // 2026-12-01T23:59:01.123Z
  EXPECT_EQ(v[0][23], 'Z') << v[0];
}

TEST_F(LogTest, APathCannotForgeALineOrAField) {
  use(log::Format::kText);
  log::access({"GET", "/a\n2026-01-01T00:00:00.000Z GET /admin 200 1B 1us id=x", 404, 0, 3, "id1"});
  auto v = lines();
  ASSERT_EQ(v.size(), 1u) << out_.str();
  EXPECT_NE(v[0].find("/a\\x0a2026"), std::string::npos) << v[0];
  EXPECT_EQ(v[0].find(" GET /admin "), std::string::npos) << v[0];  // spaces inside the path are escaped
}

TEST_F(LogTest, JsonLinesParseAndKeepTheValues) {
  use(log::Format::kJson);
  log::access({"POST", "/api/\"reviews\"\n", 201, 17, 1234, "id2"});
  log::error("boom: \"quoted\"\nsecond line", "id2");
  auto v = lines();
  ASSERT_EQ(v.size(), 2u) << out_.str();
  auto a = nlohmann::json::parse(v[0]);
  EXPECT_EQ(a["log"], "access");
  EXPECT_EQ(a["method"], "POST");
  EXPECT_EQ(a["path"], "/api/\"reviews\"\n");
  EXPECT_EQ(a["status"], 201);
  EXPECT_EQ(a["bytes"], 17);
  EXPECT_EQ(a["us"], 1234);
  EXPECT_EQ(a["id"], "id2");
  EXPECT_EQ(a["time"].get<std::string>().size(), 24u);
  auto e = nlohmann::json::parse(v[1]);
  EXPECT_EQ(e["log"], "error");
  EXPECT_EQ(e["message"], "boom: \"quoted\"\nsecond line");
}

TEST_F(LogTest, AccessLogOffKeepsTheErrorLog) {
  use(log::Format::kText, /*access=*/false);
  log::access({"GET", "/", 200, 1, 1, "id3"});
  log::error("the store failed", "id3");
  auto v = lines();
  ASSERT_EQ(v.size(), 1u) << out_.str();
  EXPECT_NE(v[0].find("ERROR the store failed id=id3"), std::string::npos) << v[0];
}

// The server's access lines (Options::access_fd): per-thread buffers written in batches by a
// flusher thread, the same line as the spdlog path, nothing lost or torn across threads.
class BufferedLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/ridge-access-XXXXXX";
    fd_ = mkstemp(name);
    ASSERT_GE(fd_, 0);
    path_ = name;
  }
  void TearDown() override {
    log::configure({log::Format::kText, /*access=*/false, /*async=*/false});
    close(fd_);
    std::remove(path_.c_str());
  }
  void use(log::Format format) {
    log::Options o{format, true, /*async=*/false};
    o.access_fd = fd_;
    log::configure(o, std::make_shared<spdlog::sinks::ostream_sink_mt>(errors_));
  }
  std::vector<std::string> written() const {
    std::ifstream in(path_);
    std::vector<std::string> v;
    for (std::string l; std::getline(in, l);) v.push_back(l);
    return v;
  }
  int fd_ = -1;
  std::string path_;
  std::ostringstream errors_;
};

TEST_F(BufferedLogTest, ALineIsTheSameLineAndWaitsForItsBatch) {
  use(log::Format::kText);
  log::access({"GET", "/q/kv-cache", 200, 5120, 85, "0000abcd-00000001"});
  log::access({"GET", "/a\n2026-01-01T00:00:00.000Z GET /admin 200 1B 1us id=x", 404, 0, 3, "id1"});
  log::flush();
  auto v = written();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NE(v[0].find(" GET /q/kv-cache 200 5120B 85us id=0000abcd-00000001"), std::string::npos) << v[0];
  EXPECT_EQ(v[0].find('T'), 10u) << v[0];
  EXPECT_EQ(v[0][23], 'Z') << v[0];
  EXPECT_EQ(v[0][24], ' ') << v[0];
  EXPECT_NE(v[1].find("/a\\x0a2026"), std::string::npos) << v[1];
  EXPECT_EQ(v[1].find(" GET /admin "), std::string::npos) << v[1];
  EXPECT_TRUE(errors_.str().empty()) << errors_.str();  // not through spdlog
}

TEST_F(BufferedLogTest, TheFlusherWritesAQuietThreadsLinesWithinItsPeriod) {
  use(log::Format::kText);
  log::access({"GET", "/", 200, 1, 1, "id-quiet"});
  // No flush: the flusher takes the buffer within 200 ms; allow 10 s on a loaded machine.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (written().empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  auto v = written();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("id=id-quiet"), std::string::npos) << v[0];
}

TEST_F(BufferedLogTest, JsonLinesParseLikeTheSpdlogPath) {
  use(log::Format::kJson);
  log::access({"POST", "/api/\"reviews\"\n\xff", 201, 17, 1234, "id2"});
  log::access({"GET", "/plain", 200, 3, 4, "id3"});
  log::flush();
  auto v = written();
  ASSERT_EQ(v.size(), 2u);
  auto a = nlohmann::json::parse(v[0]);
  EXPECT_EQ(a["log"], "access");
  EXPECT_EQ(a["method"], "POST");
  EXPECT_EQ(a["path"], "/api/\"reviews\"\n\xef\xbf\xbd");  // invalid UTF-8 replaced, as before
  EXPECT_EQ(a["status"], 201);
  EXPECT_EQ(a["bytes"], 17);
  EXPECT_EQ(a["us"], 1234);
  EXPECT_EQ(a["id"], "id2");
  EXPECT_EQ(a["time"].get<std::string>().size(), 24u);
  EXPECT_EQ(nlohmann::json::parse(v[1])["path"], "/plain");
}

TEST_F(BufferedLogTest, ManyThreadsLoseAndTearNoLine) {
  use(log::Format::kText);
  // 4 threads x 5,000 lines of about 80 bytes: several 64 KiB batches per thread.
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 5000; ++i) {
        const std::string id = std::to_string(t) + "-" + std::to_string(i);
        log::access({"GET", "/q/some-question-slug", 200, 24513, i, id});
      }
    });
  }
  for (auto& th : threads) th.join();
  log::flush();
  auto v = written();
  ASSERT_EQ(v.size(), 20000u);
  std::vector<int> next(4, 0);  // each thread's lines in its order
  for (const auto& line : v) {
    auto at = line.find(" id=");
    ASSERT_NE(at, std::string::npos) << line;
    ASSERT_EQ(line.find(" GET /q/some-question-slug 200 24513B "), 24u) << line;
    const std::string id = line.substr(at + 4);
    const int t = std::stoi(id.substr(0, id.find('-')));
    const int i = std::stoi(id.substr(id.find('-') + 1));
    ASSERT_EQ(i, next[t]) << line;
    ++next[t];
  }
}

// A reader that does not keep up (a full pipe) never stalls a request's thread: the oldest
// batches are dropped past 4 MiB waiting, and the log says how many lines.
TEST(BufferedLog, AStalledReaderDropsLinesAndNeverBlocksTheWriter) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  log::Options o{log::Format::kText, true, /*async=*/false};
  o.access_fd = p[1];
  log::configure(o, std::make_shared<spdlog::sinks::ostream_sink_mt>(std::cerr));
  // 100,000 lines of about 75 bytes (7.5 MB) into a pipe that holds 64 KiB and nobody reads:
  // with a blocking write this loop would never end.
  const std::string path(40, 'x');
  for (int i = 0; i < 100000; ++i) log::access({"GET", path, 200, 1, i, "id"});
  std::string read_back;
  std::thread reader([&] {
    char buf[65536];
    for (ssize_t n; (n = read(p[0], buf, sizeof buf)) > 0;) read_back.append(buf, static_cast<size_t>(n));
  });
  log::configure({log::Format::kText, /*access=*/false, /*async=*/false});  // writes what waits
  close(p[1]);
  reader.join();
  close(p[0]);
  const size_t lines = static_cast<size_t>(std::count(read_back.begin(), read_back.end(), '\n'));
  EXPECT_LT(lines, 100000u);
  EXPECT_GT(lines, 1000u);
  auto notice = read_back.find(" access-log lines dropped: the log's reader did not keep up");
  ASSERT_NE(notice, std::string::npos);
  // The notice's count plus the lines written is every line logged (the notice is a line too).
  const size_t start = read_back.rfind("ridge: ", notice);
  const size_t dropped = std::stoul(read_back.substr(start + 7, notice - start - 7));
  EXPECT_EQ(dropped + lines - 1, 100000u);
}

TEST_F(LogTest, RequestIdsAreUniqueAndShareTheProcessPrefix) {
  std::string a = log::next_request_id(), b = log::next_request_id();
  EXPECT_NE(a, b);
  EXPECT_EQ(a.size(), 17u) << a;
  EXPECT_EQ(a.substr(0, 9), b.substr(0, 9));
  // Unique across threads too (each takes blocks of numbers from one counter).
  std::vector<std::vector<std::string>> per_thread(4);
  std::vector<std::thread> threads;
  for (auto& ids : per_thread) {
    threads.emplace_back([&ids] {
      for (int i = 0; i < 1000; ++i) ids.push_back(log::next_request_id());
    });
  }
  for (auto& t : threads) t.join();
  std::set<std::string> all;
  for (const auto& ids : per_thread) all.insert(ids.begin(), ids.end());
  EXPECT_EQ(all.size(), 4000u);
  for (const auto& id : all) ASSERT_EQ(id.size(), 17u) << id;
}

TEST_F(LogTest, AHandlersExceptionIsLoggedAndAnswered500WithItsRequestId) {
  use(log::Format::kText);
  auto loaded = bank::load_bank(std::string(ridge::source_dir()) + "/content", calc::testing::registry(),
                                calc::testing::real_catalog(), {false});
  App app(std::move(loaded.bank), calc::testing::real_catalog(), calc::make_builtin_registry(),
          Assets(std::string(ridge::source_dir()) + "/web/static"), AppOptions{});
  Handler throws = [](const Request&, const Params&) -> Response { throw std::runtime_error("the disk is on fire"); };
  static const std::string pattern = "/boom";
  Router::Match match;
  match.handler = &throws;
  match.pattern = &pattern;
  Request req;
  req.method = "GET";
  req.target = req.path = "/boom";
  Response res = app.handle(req, match);
  EXPECT_EQ(res.status, 500);
  std::string id;
  for (const auto& [k, v] : res.headers) {
    if (k == "X-Request-Id") id = v;
  }
  ASSERT_FALSE(id.empty());
  EXPECT_NE(res.body.find(id), std::string::npos) << "the page names the request id to quote";
  EXPECT_EQ(res.body.find("on fire"), std::string::npos) << "the exception's text is not shown to the visitor";
  auto v = lines();
  ASSERT_EQ(v.size(), 2u) << out_.str();
  EXPECT_NE(v[0].find("ERROR 500 on GET /boom: the disk is on fire id=" + id), std::string::npos) << v[0];
  EXPECT_NE(v[1].find(" GET /boom 500 "), std::string::npos) << v[1];
  EXPECT_NE(v[1].find("id=" + id), std::string::npos) << v[1];
}

}  // namespace
}  // namespace ridge::web
