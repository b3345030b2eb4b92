// Supervises nginx: berthd owns its lifetime, so nginx runs in the foreground as our child.
#include "edge/edge.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "auth/accounts.hpp"  // randomHex
#include "edge/edge_cache.hpp"
#include "edge/edge_pins.hpp"
#include "log/logging.hpp"

namespace berth::core {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Written by the workers (and the cache manager), which may run as another user.
constexpr const char* kTempDirs[] = {"client_body", "proxy", "fastcgi", "uwsgi", "scgi", "cache"};

// A routing change waits this long for the next one, so that a burst costs one reload...
constexpr auto kReloadQuiet = 100ms;
// ...but never longer than this after the first change of the burst.
constexpr auto kReloadMaxDelay = 1s;

std::string describe(const std::optional<ExitStatus>& status) {
  if (!status) return "still running";
  if (status->exited) return "exit code " + std::to_string(status->code);
  if (status->signal != 0) return "killed by signal " + std::to_string(status->signal);
  return "ended";
}

std::string readFrom(const std::string& path, std::uintmax_t offset, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  auto size = static_cast<std::uintmax_t>(in.tellg());
  if (offset > size) offset = 0;  // truncated since: show what is there
  if (size - offset > max_bytes) offset = size - max_bytes;
  in.seekg(static_cast<std::streamoff>(offset));
  std::string text(static_cast<size_t>(size - offset), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  return text;
}

std::uintmax_t fileSize(const std::string& path) {
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  return ec ? 0 : size;
}

// Where to knock to see nginx listening: wildcard addresses are reached through loopback.
std::string connectHost(const std::string& host) {
  std::string plain = host;
  if (plain.size() >= 2 && plain.front() == '[' && plain.back() == ']') {
    plain = plain.substr(1, plain.size() - 2);
  }
  if (plain.empty() || plain == "*" || plain == "0.0.0.0") return "127.0.0.1";
  if (plain == "::") return "::1";
  return plain;
}

bool acceptsConnections(const ListenAddress& address) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  std::string host = connectHost(address.host);
  if (::getaddrinfo(host.c_str(), std::to_string(address.port).c_str(), &hints, &found) != 0) {
    return false;
  }
  bool connected = false;
  for (addrinfo* ai = found; ai && !connected; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    connected = ::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return connected;
}

pid_t readPid(const std::string& path) {
  std::ifstream in(path);
  pid_t pid = 0;
  return in >> pid ? pid : 0;
}

// The signal reaches workers too: after the master is SIGKILLed its workers live on, holding
// the listening sockets, and a new master could not bind.
void killGroup(pid_t leader) {
  if (leader > 0) ::kill(-leader, SIGKILL);
}

void prepareDirectories(const EdgeLayout& layout) {
  fs::create_directories(layout.runtime_dir);
  const bool root = ::geteuid() == 0;
  std::optional<UserIds> worker;
  if (!layout.worker_user.empty() && root) worker = lookupUser(layout.worker_user);
  // The config (its edge proof), the logs and the spooled bodies are nobody else's. Workers,
  // which may run as another user, pass through to their temp dirs: by the group of a named
  // worker user; by the others' bit (no listing) when nginx picks its own (root, no user set).
  if (worker && ::chown(layout.runtime_dir.c_str(), ::geteuid(), worker->gid) != 0)
    throw std::runtime_error("cannot hand " + layout.runtime_dir + " to the group of " +
                             layout.worker_user + ": " + std::strerror(errno));
  fs::perms mode = fs::perms::owner_all;
  if (worker) mode |= fs::perms::group_exec;
  if (root && !worker) mode |= fs::perms::group_exec | fs::perms::others_exec;
  fs::permissions(layout.runtime_dir, mode);
  for (const char* name : kTempDirs) {
    std::string dir = layout.runtime_dir + "/" + name;
    fs::create_directories(dir);
    if (worker && ::chown(dir.c_str(), worker->uid, worker->gid) != 0) {
      throw std::runtime_error("cannot hand " + dir + " to " + layout.worker_user + ": " +
                               std::strerror(errno));
    }
    fs::permissions(dir, fs::perms::owner_all);
  }
  // nginx's error lines may quote a request (its query string too): private, as the access log.
  std::string error_log = layout.runtime_dir + "/error.log";
  int fd = ::open(error_log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  bool made = fd >= 0 && ::fchmod(fd, 0600) == 0;
  int error = errno;
  if (fd >= 0) ::close(fd);
  if (!made)
    throw std::runtime_error("cannot make " + error_log + " private: " + std::strerror(error));
}

// Bodies an earlier run spooled and never handed over (nginx removes the ones it finishes).
void emptyBodyFolder(const EdgeLayout& layout) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(layout.runtime_dir + "/client_body", ec)) {
    std::error_code ignored;
    fs::remove_all(entry.path(), ignored);
  }
}

// 0600: nginx's master reads it as root, and it holds the edge proof.
void writeFileAtomically(const std::string& path, const std::string& text) {
  std::string temp = path + ".tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) throw std::runtime_error("cannot write " + temp + ": " + std::strerror(errno));
  bool ok = ::fchmod(fd, 0600) == 0;
  for (size_t done = 0; ok && done < text.size();) {
    ssize_t wrote = ::write(fd, text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    ok = wrote > 0;
    if (ok) done += static_cast<size_t>(wrote);
  }
  ok = ::close(fd) == 0 && ok;
  if (!ok) throw std::runtime_error("cannot write " + temp);
  fs::rename(temp, path);
}

// The ports clients reach nginx on: an old worker holding a connection there is still answering.
std::vector<uint16_t> listenPorts(const EdgeLayout& layout) {
  std::vector<uint16_t> ports{layout.listen.port};
  for (const auto& extra : layout.project_listens) ports.push_back(extra.port);
  return ports;
}

// A master left behind by a berthd that was killed still holds our ports.
void killLeftoverMaster(const std::string& runtime_dir, const std::string& config_path) {
  std::ifstream pid_file(runtime_dir + "/nginx.pid");
  pid_t pid = 0;
  if (!(pid_file >> pid) || pid <= 1) return;
  std::string cmdline = readProcFile("/proc/" + std::to_string(pid) + "/cmdline");
  if (cmdline.find("nginx") == std::string::npos ||
      cmdline.find(config_path) == std::string::npos) {
    return;  // stale pid file: the number belongs to someone else now, or to nobody
  }
  getLogger("edge")->warn("killing nginx left over from an earlier run (pid {})", pid);
  if (::getpgid(pid) == pid) killGroup(pid);
  ::kill(pid, SIGKILL);
  auto deadline = Clock::now() + 5s;
  while (::kill(pid, 0) == 0 && Clock::now() < deadline) std::this_thread::sleep_for(20ms);
}

}  // namespace

Edge::Edge(std::string nginx_binary, EdgeLayout layout)
    : binary_(std::move(nginx_binary)),
      layout_(std::move(layout)),
      config_path_(layout_.runtime_dir + "/nginx.conf") {}

Edge::~Edge() {
  try {
    stop();
  } catch (...) {
    // Destructors must not throw; stop() only fails when logging does.
  }
}

void Edge::writeConfig() {
  layout_.request_id_prefix = randomHex(4);
  writeFileAtomically(config_path_, renderNginxConfig(layout_));
}

void Edge::start() {
  std::lock_guard lock(mutex_);
  if (child_.running()) return;
  stopping_ = false;
  prepareDirectories(layout_);
  killLeftoverMaster(layout_.runtime_dir, config_path_);
  emptyBodyFolder(layout_);
  // An nginx whose old workers may leave a reload with an answer still arriving gets its
  // workers pinned before each reload (edge_pins.hpp); a fixed one needs no pin server.
  auto version = runCommand({binary_, "-v"}, {}, 60s);
  if (!pins_ && nginxLosesTimersWithEpoll(version.output)) {
    layout_.pin_port = freeLoopbackPort();
    layout_.pin_socket = layout_.runtime_dir + "/pins.sock";
    if (layout_.pin_port != 0) pins_ = std::make_unique<EdgePins>(layout_.pin_socket);
    if (!pins_) layout_.pin_port = 0;
  }
  writeConfig();

  std::string prefix = layout_.runtime_dir + "/";
  auto check = runCommand({binary_, "-t", "-q", "-p", prefix, "-c", config_path_}, {}, 60s);
  if (!check.status.ok()) {
    throw std::runtime_error("nginx refused its configuration " + config_path_ + ": " +
                             check.output);
  }

  std::string error_log = layout_.runtime_dir + "/error.log";
  std::string pid_file = layout_.runtime_dir + "/nginx.pid";
  std::error_code ignored;
  fs::remove(pid_file, ignored);
  auto log_offset = fileSize(error_log);
  SpawnOptions options;
  options.output_file = error_log;
  options.new_process_group = true;
  options.parent_death_signal = SIGTERM;  // a berthd killed hard takes its edge along
  child_ = spawn({binary_, "-p", prefix, "-c", config_path_}, options);

  auto deadline = Clock::now() + 10s;
  // nginx writes its pid file only after binding every listen address; the connect then proves
  // it is nginx accepting there, not a stranger holding the port.
  while (readPid(pid_file) != child_.pid() || !acceptsConnections(layout_.listen)) {
    bool died = !child_.running();
    if (died || Clock::now() >= deadline) {
      pid_t leader = child_.pid();
      auto status = died ? child_.exitStatus() : std::nullopt;
      child_ = Child();  // kills and reaps
      killGroup(leader);
      throw std::runtime_error("nginx did not start listening on " + layout_.listen.str() + " (" +
                               describe(status) + "): " + readFrom(error_log, log_offset, 4000));
    }
    std::this_thread::sleep_for(20ms);
  }
  loaded_generation_ = wanted_generation_;
  publishEdgeCacheTtls(edgeCacheTtls(layout_));
  supervisor_ = std::thread([this] { supervise(); });
  reloader_ = std::thread([this] { reloadLoop(); });
}

void Edge::supervise() {
  auto logger = getLogger("edge");
  int quick_deaths = 0;
  auto launched_at = Clock::now();
  auto next_check = Clock::now();
  while (!stopping_) {
    std::this_thread::sleep_for(50ms);  // short, so that stop() does not wait long
    if (Clock::now() < next_check) continue;
    next_check = Clock::now() + 200ms;

    std::lock_guard lock(mutex_);
    if (pins_) pins_->releaseDone(listenPorts(layout_));
    if (stopping_ || child_.running()) continue;
    pid_t old_pid = child_.pid();
    logger->warn("nginx (pid {}) stopped unexpectedly ({}); restarting", old_pid,
                 describe(child_.exitStatus()));
    killGroup(old_pid);
    // The bodies the dead nginx spooled would stay until berthd's next start: no nginx of ours
    // writes there now, and every request they belonged to has lost its client (a handler
    // still taking one over fails as for an unreadable body).
    emptyBodyFolder(layout_);

    // A config or port problem makes nginx die at once: back off instead of spinning.
    quick_deaths = Clock::now() - launched_at < 10s ? quick_deaths + 1 : 0;
    if (quick_deaths > 1) {
      next_check = Clock::now() + std::min(200ms * (1 << std::min(quick_deaths, 6)),
                                           std::chrono::milliseconds(10s));
    }
    try {
      SpawnOptions options;
      options.output_file = layout_.runtime_dir + "/error.log";
      options.new_process_group = true;
      options.parent_death_signal = SIGTERM;
      child_ = spawn({binary_, "-p", layout_.runtime_dir + "/", "-c", config_path_}, options);
      launched_at = Clock::now();
      ++restarts_;
    } catch (const std::exception& e) {
      logger->error("cannot restart nginx: {}", e.what());
    }
  }
}

void Edge::setCustomHosts(std::vector<std::string> hosts) {
  change([&](EdgeLayout& next) { next.custom_hosts = std::move(hosts); }, "custom hosts");
}

void Edge::setCacheRules(std::vector<EdgeCacheRule> rules) {
  change([&](EdgeLayout& next) { next.cache_rules = std::move(rules); }, "edge cache rules");
}

void Edge::setFilesRules(std::vector<EdgeFilesRule> rules) {
  change([&](EdgeLayout& next) { next.files_rules = std::move(rules); }, "edge file trees");
}

void Edge::setAppRules(std::vector<EdgeAppRule> rules) {
  change([&](EdgeLayout& next) { next.app_rules = std::move(rules); }, "edge app routes");
}

void Edge::change(const std::function<void(EdgeLayout&)>& edit, const char* what) {
  std::lock_guard lock(mutex_);
  EdgeLayout next = layout_;
  edit(next);
  // Plugins republish their lists periodically: an unchanged list costs no reload.
  if (next.custom_hosts == layout_.custom_hosts && next.cache_rules == layout_.cache_rules &&
      next.files_rules == layout_.files_rules && next.app_rules == layout_.app_rules)
    return;
  try {
    renderNginxConfig(next);  // refuses what cannot be pasted into the config
  } catch (const std::exception& e) {
    getLogger("edge")->error("keeping the current nginx configuration: new {}: {}", what, e.what());
    return;
  }
  layout_ = std::move(next);
  auto now = Clock::now();
  if (loaded_generation_ == wanted_generation_) first_pending_ = now;
  last_change_ = now;
  ++wanted_generation_;
  if (child_.pid() <= 0) loaded_generation_ = wanted_generation_;  // start() writes it
  changed_.notify_all();
}

void Edge::reloadLoop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (loaded_generation_ == wanted_generation_) {
      changed_.wait(lock);
      continue;
    }
    auto due = std::min(last_change_ + kReloadQuiet, first_pending_ + kReloadMaxDelay);
    if (Clock::now() < due) {
      changed_.wait_until(lock, due);
      continue;
    }
    reload(lock);
    changed_.notify_all();
  }
}

void Edge::reload(std::unique_lock<std::mutex>& lock) {
  auto logger = getLogger("edge");
  const uint64_t generation = wanted_generation_;
  EdgeLayout next = layout_;
  next.request_id_prefix = randomHex(4);
  if (loaded_generation_ + 1 < generation)
    logger->debug("one nginx reload for {} routing changes", generation - loaded_generation_);
  std::string candidate = config_path_ + ".next";
  try {
    writeFileAtomically(candidate, renderNginxConfig(next));
  } catch (const std::exception& e) {
    logger->error("keeping the current nginx configuration: {}", e.what());
    loaded_generation_ = generation;
    return;
  }
  // Plugins that change routing meanwhile must not wait for nginx -t.
  lock.unlock();
  auto check =
      runCommand({binary_, "-t", "-q", "-p", next.runtime_dir + "/", "-c", candidate}, {}, 60s);
  lock.lock();
  loaded_generation_ = std::max(loaded_generation_, generation);
  if (!check.status.ok()) {
    logger->error("nginx refused the new configuration, keeping the current one: {}", check.output);
    std::error_code ignored;
    fs::remove(candidate, ignored);
    return;
  }
  if (stopping_ || child_.pid() <= 0) return;
  fs::rename(candidate, config_path_);
  publishEdgeCacheTtls(edgeCacheTtls(next));
  // Old workers must not leave before the answers they are sending are done.
  if (pins_) pins_->pinWorkers(child_.pid(), layout_.pin_port);
  // A dead master is restarted by the supervisor, from the new file.
  child_.signal(SIGHUP);
  ++reloads_;
}

bool Edge::settle(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  const uint64_t target = wanted_generation_;
  return changed_.wait_for(lock, timeout,
                           [&] { return loaded_generation_ >= target || stopping_; });
}

void Edge::stop() {
  {
    std::lock_guard lock(mutex_);  // so that the reloader cannot miss the wake-up
    stopping_ = true;
  }
  changed_.notify_all();
  if (reloader_.joinable()) reloader_.join();
  if (supervisor_.joinable()) supervisor_.join();
  std::lock_guard lock(mutex_);
  pid_t leader = child_.pid();
  if (pins_) pins_->clear();  // or the workers would wait for them
  if (child_.running()) {
    child_.signal(SIGQUIT);  // graceful: finish requests in flight
    if (!child_.wait(5s)) {
      getLogger("edge")->warn("nginx did not stop within 5 s; killing it");
      killGroup(leader);
      child_.waitForever();
    }
  }
  killGroup(leader);
  child_ = Child();
}

void Edge::reopenLogs() {
  std::lock_guard lock(mutex_);
  // A restart in the meantime opens the files afresh anyway.
  if (child_.pid() > 0) ::kill(child_.pid(), SIGUSR1);
}

pid_t Edge::pid() const {
  std::lock_guard lock(mutex_);
  return child_.pid();
}

}  // namespace berth::core
