#include "soak/sampler.hpp"

#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>

#include "db/pool.hpp"
#include "soak/recorder.hpp"

namespace berth::soak {

namespace {

struct Proc {
  pid_t pid = 0, ppid = 0;
  std::string cmdline;
  double rss_kb = 0;
};

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A "Name:   value kB" line of /proc/<pid>/status, as a number (0 when absent).
double statusField(const std::string& status, const std::string& name) {
  auto at = status.find("\n" + name + ":");
  if (at == std::string::npos) return 0;
  return std::atof(status.c_str() + at + name.size() + 2);
}

std::vector<Proc> processes() {
  std::vector<Proc> out;
  DIR* dir = opendir("/proc");
  if (!dir) return out;
  while (dirent* e = readdir(dir)) {
    pid_t pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    const std::string base = "/proc/" + std::string(e->d_name);
    std::string status = readAll(base + "/status");
    if (status.empty()) continue;  // gone meanwhile
    Proc p;
    p.pid = pid;
    p.ppid = static_cast<pid_t>(statusField("\n" + status, "PPid"));
    p.rss_kb = statusField(status, "VmRSS");
    p.cmdline = readAll(base + "/cmdline");
    for (char& c : p.cmdline)
      if (c == '\0') c = ' ';
    out.push_back(std::move(p));
  }
  closedir(dir);
  return out;
}

double countEntries(const std::string& path) {
  DIR* dir = opendir(path.c_str());
  if (!dir) return 0;
  double n = 0;
  while (dirent* e = readdir(dir))
    if (e->d_name[0] != '.') ++n;
  closedir(dir);
  return n;
}

double pgConnections(const std::string& cluster_url) {
  try {
    // A connection of its own each time, not counted (pg_backend_pid), so the sampler holds
    // nothing between samples.
    core::Pool pool(cluster_url, 1, std::chrono::seconds(5));
    auto r = pool.exec(
        "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> "
        "pg_backend_pid()");
    return std::atof(r.value(0, 0).c_str());
  } catch (...) {
    return -1;
  }
}

}  // namespace

const std::vector<Quantity>& quantities() {
  static const std::vector<Quantity> all = {
      {"berthd RSS (MB)", &Sample::rss_mb, true},
      {"berthd open fds", &Sample::fds, true},
      {"berthd threads", &Sample::threads, false},
      {"PostgreSQL connections", &Sample::pg_connections, true},
      {"edge workers", &Sample::edge_workers, false},
      {"edge workers' RSS (MB)", &Sample::edge_rss_mb, false},
      {"apps running", &Sample::apps, false},
      {"app processes", &Sample::app_processes, false},
  };
  return all;
}

Sample takeSample(pid_t berthd, const std::string& cluster_url, double t) {
  Sample s;
  s.t = t;
  const std::string base = "/proc/" + std::to_string(berthd);
  const std::string status = readAll(base + "/status");
  s.rss_mb = statusField(status, "VmRSS") / 1024.0;
  s.threads = statusField(status, "Threads");
  s.fds = countEntries(base + "/fd");
  s.pg_connections = pgConnections(cluster_url);

  // berthd's descendants: the nginx master and its workers (the edge), everything else its
  // apps (bubblewrap, node, php-cgi, builds, pg_dump).
  auto all = processes();
  std::multimap<pid_t, const Proc*> children;
  for (const auto& p : all) children.emplace(p.ppid, &p);
  std::vector<std::pair<const Proc*, bool>> stack;  // a process, whether it is the edge's
  for (auto [it, end] = children.equal_range(berthd); it != end; ++it)
    stack.push_back({it->second, it->second->cmdline.rfind("nginx", 0) == 0});
  while (!stack.empty()) {
    auto [p, edge] = stack.back();
    stack.pop_back();
    if (edge && p->cmdline.find("worker process") != std::string::npos) {
      // "worker process is shutting down" is an old one finishing its answers after a reload.
      ++s.edge_workers;
      s.edge_rss_mb += p->rss_kb / 1024.0;
    } else if (!edge) {
      ++s.app_processes;
      if (p->ppid == berthd) ++s.apps;  // one app: its sandbox and everything under it
    }
    for (auto [it, end] = children.equal_range(p->pid); it != end; ++it)
      stack.push_back({it->second, edge});
  }
  return s;
}

Sampler::Sampler(pid_t berthd, std::string cluster_url, double started_at_s, double every_s)
    : berthd_(berthd),
      cluster_url_(std::move(cluster_url)),
      started_at_s_(started_at_s),
      every_s_(every_s),
      thread_([this] { run(); }) {}

Sampler::~Sampler() {
  stop();
}

void Sampler::stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

std::vector<Sample> Sampler::samples() const {
  std::lock_guard lock(mutex_);
  return samples_;
}

void Sampler::run() {
  double next = started_at_s_;
  while (!stopping_) {
    if (nowSeconds() >= next) {
      Sample s = takeSample(berthd_, cluster_url_, nowSeconds() - started_at_s_);
      std::lock_guard lock(mutex_);
      samples_.push_back(s);
      next += every_s_;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::vector<std::string> duplicateApps(pid_t berthd) {
  std::map<std::string, std::vector<std::string>> by_project;  // project id -> its releases
  for (const auto& p : processes()) {
    if (p.ppid != berthd || p.cmdline.rfind("nginx", 0) == 0) continue;
    const auto at = p.cmdline.find("/releases/");
    if (at == std::string::npos) continue;
    const auto start = at + 10, slash = p.cmdline.find('/', start);
    if (slash == std::string::npos) continue;
    const std::string project = p.cmdline.substr(start, slash - start);
    by_project[project].push_back(
        p.cmdline.substr(slash + 1, p.cmdline.find(' ', slash) - slash - 1) + " (pid " +
        std::to_string(p.pid) + ")");
  }
  std::vector<std::string> out;
  for (const auto& [project, releases] : by_project) {
    if (releases.size() < 2) continue;
    std::string line = project + ":";
    for (const auto& r : releases) line += " " + r;
    out.push_back(line);
  }
  return out;
}

std::vector<std::string> connectionBreakdown(const std::string& cluster_url) {
  std::vector<std::string> out;
  try {
    core::Pool pool(cluster_url, 1, std::chrono::seconds(5));
    auto r = pool.exec(
        "SELECT coalesce(datname, '-'), coalesce(usename, '-'), coalesce(state, '-'), count(*) "
        "FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> "
        "pg_backend_pid() GROUP BY 1, 2, 3 ORDER BY 4 DESC, 1 LIMIT 12");
    for (int i = 0; i < r.rows(); ++i)
      out.push_back(r.value(i, 0) + " / " + r.value(i, 1) + " / " + r.value(i, 2) + ": " +
                    r.value(i, 3));
  } catch (const std::exception& e) {
    out.push_back(std::string("(could not ask: ") + e.what() + ")");
  }
  return out;
}

}  // namespace berth::soak
