#include "cli/lab_sandbox.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace ridge::cli {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kStdoutCap = 4U << 20;
constexpr std::size_t kStderrKeep = 64U << 10;

// /bin, /lib, ... : a link into /usr on a merged-/usr system (Debian 12), replicated as the
// same link; a real directory on an older layout, bound read-only.
void add_root_links(std::vector<std::string>& args) {
  for (const char* dir : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
    std::error_code ec;
    const auto st = fs::symlink_status(dir, ec);
    if (ec || !fs::exists(st)) continue;
    if (fs::is_symlink(st)) {
      args.insert(args.end(), {"--symlink", fs::read_symlink(dir, ec).string(), dir});
    } else if (fs::is_directory(st)) {
      args.insert(args.end(), {"--ro-bind", dir, dir});
    }
  }
}

std::vector<std::string> bwrap_argv(const SandboxRun& run) {
  std::vector<std::string> a{bwrap_path(),
                             "--unshare-all",  // network, pid, ipc, uts, cgroup, user
                             "--unshare-user",
                             "--uid", "65534", "--gid", "65534",
                             "--cap-drop", "ALL",
                             "--die-with-parent",
                             "--new-session",  // no TIOCSTI into the terminal ridge runs in
                             "--ro-bind", "/usr", "/usr"};
  add_root_links(a);
  a.insert(a.end(), {"--proc", "/proc", "--dev", "/dev", "--size", std::to_string(run.limits.file_bytes), "--tmpfs",
                     "/tmp", "--chdir", "/tmp", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME",
                     "/tmp", "--setenv", "LANG", "C.UTF-8"});
  for (const auto& [k, v] : run.env) a.insert(a.end(), {"--setenv", k, v});
  for (const auto& b : run.binds) a.insert(a.end(), {b.writable ? "--bind" : "--ro-bind", b.host, b.inside});
  a.emplace_back("--");
  a.insert(a.end(), run.argv.begin(), run.argv.end());
  return a;
}

void set_limit(int resource, std::uint64_t bytes) {
  const rlimit l{static_cast<rlim_t>(bytes), static_cast<rlim_t>(bytes)};
  setrlimit(resource, &l);
}

}  // namespace

std::string bwrap_path() {
  if (const char* env = std::getenv("RIDGE_BWRAP"); env != nullptr && *env != '\0') return env;
  return "/usr/bin/bwrap";
}

SandboxResult run_sandboxed(const SandboxRun& run) {
  SandboxResult r;
  const std::string bwrap = bwrap_path();
  if (access(bwrap.c_str(), X_OK) != 0) {
    r.error = "the sandbox needs bubblewrap and " + bwrap +
              " is not there; install Debian's bubblewrap (apt-get install bubblewrap; scripts/deps.sh does)";
    return r;
  }
  signal(SIGPIPE, SIG_IGN);  // a program that closes its stdin early is an error reply, not our death
  const std::vector<std::string> args = bwrap_argv(run);
  std::vector<char*> argv;
  for (const auto& s : args) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);

  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    r.error = std::string("cannot create pipes: ") + std::strerror(errno);
    return r;
  }
  const auto started_at = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    r.error = std::string("cannot fork: ") + std::strerror(errno);
    return r;
  }
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    setpgid(0, 0);
    set_limit(RLIMIT_DATA, run.limits.data_bytes);
    set_limit(RLIMIT_FSIZE, run.limits.file_bytes);
    set_limit(RLIMIT_CORE, 0);
    execv(argv[0], argv.data());
    const std::string msg = std::string("ridge lab: cannot exec ") + argv[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(2, msg.data(), msg.size());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  r.started = true;
  fcntl(in[1], F_SETFL, O_NONBLOCK);

  std::size_t written = 0;
  int in_fd = in[1];
  if (run.stdin_text.empty()) {
    close(in_fd);
    in_fd = -1;
  }
  int out_fd = out[0], err_fd = err[0];
  const auto deadline = started_at + std::chrono::milliseconds(run.limits.timeout_ms);
  std::array<char, 65536> buf{};
  bool killed = false;
  auto kill_all = [&] {
    if (!killed) {
      kill(pid, SIGKILL);  // bwrap; the pid namespace inside dies with it
      kill(-pid, SIGKILL);
      killed = true;
    }
  };
  while (out_fd >= 0 || err_fd >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      kill_all();
      break;
    }
    std::vector<pollfd> fds;
    if (in_fd >= 0) fds.push_back({in_fd, POLLOUT, 0});
    if (out_fd >= 0) fds.push_back({out_fd, POLLIN, 0});
    if (err_fd >= 0) fds.push_back({err_fd, POLLIN, 0});
    const int n = poll(fds.data(), fds.size(), static_cast<int>(std::min<std::int64_t>(left.count(), 1000)));
    if (n < 0 && errno != EINTR) break;
    for (const auto& p : fds) {
      if (p.revents == 0) continue;
      if (p.fd == in_fd) {
        const ssize_t w = write(in_fd, run.stdin_text.data() + written, run.stdin_text.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if (w < 0 && errno != EAGAIN) written = run.stdin_text.size();  // the program closed its stdin
        if (written >= run.stdin_text.size()) {
          close(in_fd);
          in_fd = -1;
        }
        continue;
      }
      const ssize_t got = read(p.fd, buf.data(), buf.size());
      if (got <= 0) {
        close(p.fd);
        (p.fd == out_fd ? out_fd : err_fd) = -1;
        continue;
      }
      if (p.fd == out_fd) {
        r.out.append(buf.data(), static_cast<std::size_t>(got));
        if (r.out.size() > kStdoutCap) {
          r.output_overflow = true;
          kill_all();
        }
      } else {
        r.err.append(buf.data(), static_cast<std::size_t>(got));
        if (r.err.size() > 2 * kStderrKeep) r.err.erase(0, r.err.size() - kStderrKeep);
      }
    }
    if (r.output_overflow) break;
  }
  for (int fd : {in_fd, out_fd, err_fd}) {
    if (fd >= 0) close(fd);
  }
  // The pipes are closed: the program is gone or about to be. Wait for it, within the limit.
  int status = 0;
  for (;;) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      if (!killed) r.timed_out = true;
      kill_all();
      waitpid(pid, &status, 0);
      break;
    }
    usleep(2000);
  }
  if (r.err.size() > kStderrKeep) r.err.erase(0, r.err.size() - kStderrKeep);
  r.wall_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started_at).count();
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

std::string sandbox_unavailable() {
  SandboxRun probe;
  probe.argv = {"/usr/bin/true"};
  probe.limits.timeout_ms = 10'000;
  const SandboxResult r = run_sandboxed(probe);
  if (!r.started) return r.error;
  if (r.exit_code == 0) return "";
  std::string said = r.err;
  while (!said.empty() && said.back() == '\n') said.pop_back();
  return "the sandbox does not start (" + bwrap_path() + " said: " + (said.empty() ? "nothing" : said) +
         "). bubblewrap needs user namespaces: on a host, sysctl kernel.unprivileged_userns_clone=1 (and "
         "user.max_user_namespaces > 0); in a container, one that allows creating them";
}

}  // namespace ridge::cli
