// `ridge lab`: the reference builds of the coding questions. Lists them, runs their
// tests and measure programs (built by CMake next to the ridge binary), and compiles a
// user's implementation against a build's header and tests.
#include "cli/lab_command.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <future>
#include <set>
#include <sstream>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cli/flags.h"
#include "cli/lab_builds.h"
#include "cli/lab_cases.h"

namespace ridge::cli {

namespace {

namespace fs = std::filesystem;
using namespace labs;

const char* kUsage =
    "Usage:\n"
    "  ridge lab list                          the builds, one line each\n"
    "  ridge lab test ID [-- GTEST_FLAGS]      run a build's tests\n"
    "  ridge lab test ID --impl FILE.cc        compile your implementation of ID's header with its tests, run them\n"
    "  ridge lab test ID --impl FILE.py|.go    run your program through ID's cases (the protocol in lab/README.md)\n"
    "  ridge lab test ID --cases               run the built C++ reference through ID's cases\n"
    "      [--case NAME] [--timeout SECONDS] [--memory MIB]   one case; the sandbox's limits (10 s, 512 MiB)\n"
    "  ridge lab measure ID [--json]           run a build's measure program\n"
    "  ridge lab measure --all [--json]        every measure program (--json: one object keyed by id)\n"
    "Exit status: 0 ok, 1 tests failed or the implementation did not build, 2 bad input.\n";

int unknown_id(const std::string& id, std::ostream& err) {
  err << "ridge lab: '" << id << "' is not a lab build; accepted: " << accepted_ids() << "\n";
  return 2;
}

std::string lab_target(const LabBuild& b, std::string_view kind) {
  std::string target = "lab_" + std::string(b.id) + "_" + std::string(kind);
  std::replace(target.begin(), target.end(), '-', '_');
  return target;
}

// The CMake build folder this ridge was built in (where its lab/ programs go), when it is one:
// `make run` builds only ridge, so the lab's programs are built on first use (issue 33 item 11).
std::optional<fs::path> own_build_dir() {
  if (const char* env = std::getenv("RIDGE_LAB_BIN"); env != nullptr && *env != '\0') return std::nullopt;
  const fs::path dir = lab_bin_dir().parent_path();
  std::error_code ec;
  if (!fs::is_regular_file(dir / "CMakeCache.txt", ec)) return std::nullopt;
  return dir;
}

// True when the program is there, or was just built: in ridge's own build folder, with the
// command printed first so the wait is explained.
bool ensure_built(const LabBuild& b, std::string_view kind, const fs::path& path, std::ostream& err) {
  std::error_code ec;
  if (fs::exists(path, ec)) return true;
  auto dir = own_build_dir();
  if (!dir) return false;
  const std::string target = lab_target(b, kind);
  err << "ridge lab: building the " << kind << " program of '" << b.id << "': cmake --build " << dir->string() << " --target "
      << target << "\n";
  if (run_process({"cmake", "--build", dir->string(), "--target", target}, true, &err, nullptr) != 0) return false;
  return fs::exists(path, ec);
}

int missing_binary(const LabBuild& b, std::string_view kind, const fs::path& path, std::ostream& err) {
  auto dir = own_build_dir();
  err << "ridge lab: the " << kind << " program of '" << b.id << "' is not built (looked for " << path.string()
      << "); build it with: cmake --build " << (dir ? dir->string() : std::string("build/release")) << " --target "
      << lab_target(b, kind) << "\n";
  return 1;
}

int list_builds(std::ostream& out) {
  std::size_t width = 0;
  for (const auto& b : lab_builds()) width = std::max(width, b.id.size());
  for (const auto& b : lab_builds()) {
    out << "  " << b.id << std::string(width - b.id.size() + 2, ' ') << b.summary
        << (has_cases(b) ? " [cases: .py .go .cc]" : "") << "\n";
  }
  out << "\n" << kUsage;
  return 0;
}

int run_tests(const LabBuild& b, const std::vector<std::string>& gtest_flags, std::ostream& out, std::ostream& err) {
  const fs::path bin = built_binary(b, "test");
  if (!ensure_built(b, "test", bin, err)) return missing_binary(b, "test", bin, err);
  std::vector<std::string> argv{bin.string()};
  argv.insert(argv.end(), gtest_flags.begin(), gtest_flags.end());
  const int rc = run_process(argv, true, &out, nullptr);
  return rc == 0 ? 0 : 1;
}

// ---- --impl: compile the user's file against the build's header and tests ----

struct Compiled {
  int rc;
  std::string output;
};

std::string first_lines(const std::string& text, std::size_t from_line, std::size_t count) {
  std::istringstream in(text);
  std::string line, out;
  std::size_t i = 0, shown = 0;
  while (std::getline(in, line)) {
    if (i >= from_line && shown < count) {
      out += "    " + line + "\n";
      ++shown;
    }
    ++i;
  }
  const std::size_t total = i;
  if (total > from_line + shown) out += "    ... (" + std::to_string(total - from_line - shown) + " more lines)\n";
  return out;
}

// The compiler's first errors: from the first line that names an error (or the
// "In function ..." line just before it), 25 lines.
std::string first_errors(const std::string& output) {
  std::istringstream in(output);
  std::string line, previous;
  std::size_t i = 0, start = 0;
  while (std::getline(in, line)) {
    if (line.find("error:") != std::string::npos) {
      start = i > 0 && previous.find(": In ") != std::string::npos ? i - 1 : i;
      break;
    }
    previous = line;
    ++i;
  }
  return first_lines(output, start, 25);
}

// Names quoted in linker messages such as "undefined reference to `ns::f(int)'".
std::vector<std::string> linker_names(const std::string& output, std::string_view marker) {
  std::set<std::string> names;
  std::size_t pos = 0;
  while ((pos = output.find(marker, pos)) != std::string::npos) {
    pos += marker.size();
    const std::size_t open = output.find_first_of("`'", pos);
    const std::size_t close = open == std::string::npos ? open : output.find('\'', open + 1);
    if (open == std::string::npos || close == std::string::npos) break;
    names.insert(output.substr(open + 1, close - open - 1));
    pos = close;
  }
  return {names.begin(), names.end()};
}

bool includes_header(const fs::path& file, std::string_view header) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("#include") != std::string::npos && line.find(std::string(header)) != std::string::npos) return true;
  }
  return false;
}

int test_impl(const LabBuild& b, const std::vector<std::string>& impl_files, const std::vector<std::string>& gtest_flags,
              const CaseOptions& options, std::ostream& out, std::ostream& err) {
  const fs::path src = lab_source_dir() / std::string(b.id);
  if (!fs::exists(src / std::string(b.headers.front()))) {
    err << "ridge lab: cannot find the lab sources at " << src.string()
        << "; set RIDGE_SOURCE_DIR to the ridge source tree\n";
    return 1;
  }
  TempDir tmp;
  if (tmp.path().empty()) {
    err << "ridge lab: cannot create a temporary directory\n";
    return 1;
  }
  const char* cxx_env = std::getenv("CXX");
  const std::string cxx = cxx_env != nullptr && *cxx_env != '\0' ? cxx_env : "g++";
  const std::vector<std::string> flags{"-std=c++20", "-O1", "-g", "-pthread", "-I" + src.string(),
                                       "-I" + lab_source_dir().string(),
                                       "-DRIDGE_SOURCE_DIR=\"" + lab_source_dir().parent_path().string() + "\""};
  auto compile = [&](const std::string& source, const fs::path& object) {
    std::vector<std::string> argv{cxx};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"-c", source, "-o", object.string()});
    Compiled c;
    c.rc = run_process(argv, true, nullptr, &c.output);
    return c;
  };

  std::string contract;
  for (const auto& h : b.headers) contract += (contract.empty() ? "" : ", ") + ("lab/" + std::string(b.id) + "/" + std::string(h));
  out << "ridge lab: compiling " << impl_files.size() << " file(s) against " << contract << "\n";
  for (const auto& f : impl_files) {
    bool any = false;
    for (const auto& h : b.headers) any = any || includes_header(f, h);
    if (!any) {
      out << "  note: " << f << " includes none of " << contract
          << ": its definitions are not checked against the declarations until the link\n";
    }
  }

  std::vector<std::string> objects;
  for (std::size_t i = 0; i < impl_files.size(); ++i) {
    const fs::path object = tmp.path() / ("impl" + std::to_string(i) + ".o");
    const Compiled c = compile(impl_files[i], object);
    if (c.rc == 127 && c.output.find("not found") != std::string::npos) {
      err << "ridge lab: cannot run the compiler '" << cxx << "' (set CXX)\n";
      return 1;
    }
    if (c.rc != 0) {
      err << "ridge lab: " << impl_files[i] << " does not compile against " << contract << ". First errors:\n"
          << first_errors(c.output);
      return 1;
    }
    objects.push_back(object.string());
  }
  const std::vector<std::string> impl_objects = objects;

  // The build's test sources, two at a time.
  out << "ridge lab: compiling the tests of '" << b.id << "' (" << b.tests.size() << " file(s))\n";
  std::vector<std::future<Compiled>> jobs;
  for (std::size_t i = 0; i < b.tests.size(); ++i) {
    const fs::path object = tmp.path() / ("test" + std::to_string(i) + ".o");
    const std::string source = (src / std::string(b.tests[i])).string();
    jobs.push_back(std::async(std::launch::async, compile, source, object));
    objects.push_back(object.string());
    if (jobs.size() >= 2 || i + 1 == b.tests.size()) {
      for (auto& j : jobs) {
        const Compiled c = j.get();
        if (c.rc != 0) {
          err << "ridge lab: the tests of '" << b.id << "' do not compile (is the source tree intact?):\n"
              << first_errors(c.output);
          return 1;
        }
      }
      jobs.clear();
    }
  }

  auto link = [&](const std::vector<std::string>& inputs, const fs::path& binary, const std::vector<std::string>& libs) {
    std::vector<std::string> argv{cxx};
    argv.insert(argv.end(), inputs.begin(), inputs.end());
    argv.insert(argv.end(), {"-o", binary.string()});
    argv.insert(argv.end(), libs.begin(), libs.end());
    argv.emplace_back("-pthread");
    Compiled linked;
    linked.rc = run_process(argv, true, nullptr, &linked.output);
    if (linked.rc == 0) return true;
    const auto missing = linker_names(linked.output, "undefined reference to");
    const auto twice = linker_names(linked.output, "multiple definition of");
    if (!missing.empty()) {
      err << "ridge lab: your implementation breaks the interface of " << contract
          << ": the tests call these, and your file does not define them (check names, parameter types, const):\n";
      for (const auto& m : missing) err << "    " << m << "\n";
    } else if (!twice.empty()) {
      err << "ridge lab: these are defined more than once (in your file and in the header, or twice in your files):\n";
      for (const auto& m : twice) err << "    " << m << "\n";
    } else {
      err << "ridge lab: linking failed:\n" << first_lines(linked.output, 0, 25);
    }
    return false;
  };
  const fs::path binary = tmp.path() / (std::string(b.id) + "-test");
  if (!link(objects, binary, {"-lgtest", "-lgtest_main"})) return 1;

  out << "ridge lab: running the tests of '" << b.id << "' against your implementation\n";
  std::vector<std::string> argv{binary.string()};
  argv.insert(argv.end(), gtest_flags.begin(), gtest_flags.end());
  if (run_process(argv, true, &out, nullptr) != 0) return 1;
  if (!has_cases(b)) return 0;

  // The same implementation behind the build's protocol adapter, through the cases that the
  // Python and Go implementations answer.
  const fs::path adapter = src / (std::string(b.id) + "_main.cc");
  out << "ridge lab: compiling the protocol adapter lab/" << b.id << "/" << adapter.filename().string()
      << " with your implementation\n";
  const fs::path adapter_object = tmp.path() / "adapter.o";
  if (const Compiled c = compile(adapter.string(), adapter_object); c.rc != 0) {
    err << "ridge lab: the protocol adapter " << adapter.string() << " does not compile with your implementation:\n"
        << first_errors(c.output);
    return 1;
  }
  std::vector<std::string> inputs = impl_objects;
  inputs.push_back(adapter_object.string());
  const fs::path proto = tmp.path() / (std::string(b.id) + "-proto");
  if (!link(inputs, proto, {})) return 1;
  std::string label;
  for (const auto& f : impl_files) label += (label.empty() ? "" : " + ") + f;
  return run_cases(std::string(b.id), cases_file(b), proto, label + " (C++, behind " + adapter.filename().string() + ")",
                   options, out, err);
}

int command_test(const LabFlags& lab, std::ostream& out, std::ostream& err) {
  const LabBuild* b = find_build(lab.id);  // checked by the flag's validator
  if (b == nullptr) return unknown_id(lab.id, err);
  const std::vector<std::string>& impl_files = lab.impl;
  const std::vector<std::string>& gtest_flags = lab.gtest_flags;
  CaseOptions options;
  options.only_case = lab.case_name;
  if (lab.timeout > 0) options.limits.timeout_ms = static_cast<int>(lab.timeout * 1000);
  if (lab.memory > 0) options.limits.data_bytes = static_cast<std::uint64_t>(lab.memory) << 20;
  const bool built_cases = lab.cases;

  std::string language;
  for (const auto& f : impl_files) {
    std::error_code ec;
    if (!fs::is_regular_file(f, ec)) {
      err << "ridge lab: --impl '" << f << "': no such file\n";
      return 2;
    }
    const std::string ext = fs::path(f).extension().string();
    const std::string lang = ext == ".cc" || ext == ".cpp" || ext == ".cxx" ? "C++" : ext == ".py" ? "Python" : ext == ".go" ? "Go" : "";
    if (lang.empty()) {
      err << "ridge lab: --impl '" << f << "': unsupported file type '" << ext
          << "'; accepted: .cc, .cpp, .cxx (C++), .py (Python), .go (Go)\n";
      return 2;
    }
    if (!language.empty() && lang != language) {
      err << "ridge lab: --impl '" << f << "' is " << lang << " and an earlier --impl is " << language
          << "; one language at a time\n";
      return 2;
    }
    if (lang != "C++" && impl_files.size() > 1) {
      err << "ridge lab: --impl '" << f << "': a " << lang << " implementation is one file; got " << impl_files.size()
          << "\n";
      return 2;
    }
    language = lang;
  }
  if ((built_cases || (!language.empty() && language != "C++")) && !has_cases(*b)) {
    err << "ridge lab: '" << b->id << "' has no language-neutral cases yet (no lab/" << b->id
        << "/cases.jsonl), so only --impl FILE.cc works for it; builds with cases: " << protocol_ids() << "\n";
    return 2;
  }
  if (built_cases) {
    if (!impl_files.empty()) {
      err << "ridge lab test: --cases runs the built C++ reference; with --impl, the cases run against your file\n";
      return 2;
    }
    const fs::path bin = built_binary(*b, "proto");
    if (!ensure_built(*b, "proto", bin, err)) return missing_binary(*b, "proto", bin, err);
    return run_cases(std::string(b->id), cases_file(*b), bin, "the C++ reference (" + bin.filename().string() + ")",
                     options, out, err);
  }
  if (impl_files.empty()) return run_tests(*b, gtest_flags, out, err);
  if (language == "C++") return test_impl(*b, impl_files, gtest_flags, options, out, err);
  return run_cases(std::string(b->id), cases_file(*b), impl_files[0],
                   impl_files[0] + (language == "Python" ? " (Python, /usr/bin/python3)" : " (Go, go build)"), options, out,
                   err);
}

int command_measure(const LabFlags& f, std::ostream& out, std::ostream& err) {
  const bool all = f.all, as_json = f.json;
  const std::string& id = f.id;
  if (all == !id.empty()) {
    err << "ridge lab measure: name a build or --all; accepted ids: " << accepted_ids() << "\n";
    return 2;
  }
  std::vector<const LabBuild*> chosen;
  if (all) {
    for (const auto& b : lab_builds()) chosen.push_back(&b);
  } else {
    const LabBuild* b = find_build(id);
    if (b == nullptr) return unknown_id(id, err);
    chosen.push_back(b);
  }
  for (const LabBuild* b : chosen) {
    const fs::path bin = built_binary(*b, "measure");
    if (!ensure_built(*b, "measure", bin, err)) return missing_binary(*b, "measure", bin, err);
  }

  if (!as_json) {
    int status = 0;
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      if (i > 0) out << "\n";
      if (run_process({built_binary(*chosen[i], "measure").string()}, false, &out, nullptr) != 0) {
        err << "ridge lab: the measure program of '" << chosen[i]->id << "' failed\n";
        status = 1;
      }
    }
    return status;
  }
  nlohmann::ordered_json collected = nlohmann::ordered_json::object();
  int status = 0;
  for (const LabBuild* b : chosen) {
    std::string text;
    if (run_process({built_binary(*b, "measure").string(), "--json"}, false, nullptr, &text) != 0) {
      err << "ridge lab: the measure program of '" << b->id << "' failed\n";
      status = 1;
      continue;
    }
    auto parsed = nlohmann::ordered_json::parse(text, nullptr, false);
    if (parsed.is_discarded()) {
      err << "ridge lab: the measure program of '" << b->id << "' did not print one JSON object\n";
      status = 1;
      continue;
    }
    if (!all) {
      out << parsed.dump(2) << "\n";
      return status;
    }
    collected[std::string(b->id)] = std::move(parsed);
  }
  out << collected.dump(2) << "\n";
  return status;
}

// A build's id, for `test ID` and `measure ID`.
CLI::Validator build_id() {
  return CLI::Validator(
      [](std::string& id) -> std::string {
        if (find_build(id) != nullptr) return "";
        return "'" + id.substr(0, 80) + "' is not a lab build; accepted: " + accepted_ids();
      },
      "ID");
}

}  // namespace

CLI::App* add_lab(CLI::App& parent, LabFlags& f) {
  CLI::App* lab = parent.add_subcommand("lab", "reference builds for the coding questions");
  lab->require_subcommand(1);
  lab->footer(kUsage);
  CLI::App* list = lab->add_subcommand("list", "the builds, one line each");
  CLI::App* test = lab->add_subcommand("test", "run a build's tests, or your implementation against them");
  test->add_option("ID", f.id, "the build")->required()->check(build_id());
  test->add_option("--impl", f.impl, "your implementation: FILE.cc (repeatable), FILE.py or FILE.go")->allow_extra_args(false);
  test->add_flag("--cases", f.cases, "run the built C++ reference through the build's cases");
  test->add_option("--case", f.case_name, "run one case (default: all)");
  test->add_option("--timeout", f.timeout, "the sandbox's time limit per case, seconds (0, the default: 10)")
      ->check(flags::positive_number(600));
  test->add_option("--memory", f.memory, "the sandbox's memory limit, MiB (0, the default: 512)")
      ->check(flags::positive_number(65536))
      ->check(CLI::Validator(
          [](std::string& mib) -> std::string {
            return std::strtod(mib.c_str(), nullptr) >= 16 ? "" : "'" + mib.substr(0, 80) + "' is not accepted; give at least 16 (MiB)";
          },
          ">= 16"));
  test->add_option("GTEST_FLAGS", f.gtest_flags, "after --: passed to the build's test program")
      ->check(CLI::Validator(
          [](std::string& flag) -> std::string {
            if (flag.rfind("-", 0) == 0) return "";
            return "'" + flag.substr(0, 80) + "' is not expected; accepted: --impl, --cases, --case, --timeout, --memory, "
                   "or gtest flags after --";
          },
          "-- GTEST_FLAGS"));
  CLI::App* measure = lab->add_subcommand("measure", "run a build's measure program, or every one with --all");
  measure->add_option("ID", f.id, "the build")->check(build_id());
  measure->add_flag("--all", f.all, "every build's (with --json: one object keyed by id)");
  measure->add_flag("--json", f.json, "one JSON object");
  for (CLI::App* verb : {list, test, measure}) verb->callback([&f, verb] { f.verb = verb->get_name(); });
  return lab;
}

int run_lab(const LabFlags& f, std::ostream& out, std::ostream& err) {
  if (f.verb == "list") return list_builds(out);
  if (f.verb == "test") return command_test(f, out, err);
  if (f.verb == "measure") return command_measure(f, out, err);
  err << "ridge lab: '" << f.verb << "' is not a lab command; accepted: list, test, measure\n";  // add_lab has no other
  return 2;
}

}  // namespace ridge::cli
