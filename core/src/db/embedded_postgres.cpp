#include "db/embedded_postgres.hpp"

#include <grp.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

#include <spdlog/spdlog.h>

#include "db/pool.hpp"

namespace berth::core {
namespace fs = std::filesystem;
namespace {

constexpr const char* kSuperuser = "berth";
constexpr const char* kDatabase = "berth";
// sockaddr_un.sun_path holds 108 bytes including the terminating NUL.
constexpr size_t kMaxSocketPath = 107;

bool hasInitdb(const fs::path& dir) {
  std::error_code ignored;
  return !dir.empty() && fs::is_regular_file(dir / "initdb", ignored);
}

std::string firstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return line;
}

std::optional<std::string> pgConfigBinDir() {
  try {
    RunResult result = runCommand({"pg_config", "--bindir"}, {}, std::chrono::seconds(10));
    if (result.status.ok()) return firstLine(result.output);
  } catch (const std::exception&) {
    // pg_config is not installed: fall through to the Debian layout.
  }
  return std::nullopt;
}

// "15" < "16", "9.6" < "10": numeric, part by part.
std::vector<int> versionParts(const std::string& name) {
  std::vector<int> parts;
  std::stringstream stream(name);
  std::string part;
  while (std::getline(stream, part, '.')) {
    if (part.empty() || !std::all_of(part.begin(), part.end(), ::isdigit)) return {};
    parts.push_back(std::stoi(part));
  }
  return parts;
}

std::optional<std::string> newestDebianBinDir() {
  const fs::path root = "/usr/lib/postgresql";
  std::error_code error;
  std::optional<std::pair<std::vector<int>, fs::path>> best;
  for (const auto& entry : fs::directory_iterator(root, error)) {
    auto version = versionParts(entry.path().filename().string());
    if (version.empty() || !hasInitdb(entry.path() / "bin")) continue;
    if (!best || version > best->first) best = std::make_pair(version, entry.path() / "bin");
  }
  if (best) return best->second.string();
  return std::nullopt;
}

// The single quotes survive pg_ctl, which hands -o to the postmaster through /bin/sh.
std::string shellQuoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string conninfoQuoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "'";
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

std::string logTail(const fs::path& log, size_t max_bytes = 2000) {
  std::string text = readFile(log);
  if (text.size() > max_bytes) text = "..." + text.substr(text.size() - max_bytes);
  return text;
}

struct ClusterUser {
  std::string name;
  UserIds ids;
};

// PostgreSQL refuses to run as root, so a root berthd hands the cluster to another user.
std::optional<ClusterUser> clusterUser(const DatabaseSettings& settings) {
  if (::geteuid() != 0) return std::nullopt;
  if (!settings.embedded_user.empty()) {
    auto ids = lookupUser(settings.embedded_user);
    if (!ids) {
      throw std::runtime_error("database.embedded_user: no user called '" + settings.embedded_user +
                               "' on this machine");
    }
    return ClusterUser{settings.embedded_user, *ids};
  }
  for (const char* candidate : {"postgres", "nobody"}) {
    if (auto ids = lookupUser(candidate)) return ClusterUser{candidate, *ids};
  }
  throw std::runtime_error(
      "berthd runs as root and the embedded PostgreSQL cannot: set database.embedded_user to an "
      "unprivileged user (neither 'postgres' nor 'nobody' exists)");
}

bool userCanEnter(const struct stat& st, const ClusterUser& user) {
  if (st.st_uid == user.ids.uid) return st.st_mode & S_IXUSR;
  int count = 64;
  std::vector<gid_t> groups;
  for (;;) {
    groups.resize(static_cast<size_t>(count));
    int wanted = count;
    if (::getgrouplist(user.name.c_str(), user.ids.gid, groups.data(), &wanted) >= 0) {
      groups.resize(static_cast<size_t>(wanted));
      break;
    }
    count = std::max(wanted, count * 2);
  }
  if (std::find(groups.begin(), groups.end(), st.st_gid) != groups.end()) {
    return st.st_mode & S_IXGRP;
  }
  return st.st_mode & S_IXOTH;
}

// Every directory above the cluster must be enterable by its user, or initdb and the postmaster
// fail with a bare "permission denied" (a data_dir under /root is the usual cause).
void requireTraversable(const fs::path& dir, const ClusterUser& user) {
  for (fs::path p = dir.parent_path(); !p.empty(); p = p.parent_path()) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) {
      throw std::runtime_error("cannot inspect " + p.string() + ": " + std::strerror(errno));
    }
    if (!userCanEnter(st, user)) {
      std::ostringstream mode;
      mode << std::oct << (st.st_mode & 07777);
      throw std::runtime_error("the embedded PostgreSQL runs as user '" + user.name +
                               "', which cannot enter " + p.string() + " (mode 0" + mode.str() +
                               "): put data_dir somewhere that user can reach, allow it (chmod "
                               "o+x " +
                               p.string() + "), or set database.embedded_user");
    }
    if (p == p.root_path()) break;
  }
}

void chownTree(const fs::path& dir, const ClusterUser& user) {
  auto chownOne = [&](const fs::path& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return;
    if (st.st_uid == user.ids.uid && st.st_gid == user.ids.gid) return;
    if (::lchown(path.c_str(), user.ids.uid, user.ids.gid) != 0) {
      throw std::runtime_error("cannot hand " + path.string() + " to user '" + user.name +
                               "': " + std::strerror(errno));
    }
  };
  chownOne(dir);
  for (const auto& entry : fs::recursive_directory_iterator(dir)) chownOne(entry.path());
}

int storedPort(const fs::path& file) {
  std::ifstream in(file);
  int port = 0;
  if (in >> port && port > 0 && port < 65536) return port;
  return 0;
}

// The superuser's password, made once: 32 hex digits, so it can stand in SQL and a URL as is.
std::string superuserPassword(const fs::path& file) {
  {
    std::ifstream in(file);
    std::string kept;
    if (in >> kept && kept.size() == 32 &&
        std::all_of(kept.begin(), kept.end(), [](char c) { return std::isxdigit(c) != 0; }))
      return kept;
  }
  std::ifstream random("/dev/urandom", std::ios::binary);
  unsigned char bytes[16];
  if (!random.read(reinterpret_cast<char*>(bytes), sizeof bytes))
    throw std::runtime_error("cannot read /dev/urandom for the embedded PostgreSQL's password");
  static const char hex[] = "0123456789abcdef";
  std::string made;
  for (unsigned char b : bytes) {
    made += hex[b >> 4];
    made += hex[b & 15];
  }
  const fs::path temporary = file.string() + ".new";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << made << "\n";
    if (!out.flush()) throw std::runtime_error("cannot write " + temporary.string());
  }
  fs::permissions(temporary, fs::perms::owner_read | fs::perms::owner_write);
  fs::rename(temporary, file);
  return made;
}

// pg_hba.conf, readable by the cluster's user: `socket` and `tcp` are the methods of the unix
// socket and of loopback TCP.
void writeHba(const fs::path& data, const std::string& socket, const std::string& tcp,
              const std::optional<ClusterUser>& user) {
  const fs::path file = data / "pg_hba.conf";
  const fs::path temporary = data / "pg_hba.conf.new";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << "# Written by berthd at every start; changes here are lost.\n"
        << "local all all " << socket << "\n"
        << "host all all 127.0.0.1/32 " << tcp << "\n"
        << "host all all ::1/128 " << tcp << "\n";
    if (!out.flush()) throw std::runtime_error("cannot write " + temporary.string());
  }
  fs::permissions(temporary,
                  fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  if (user && ::chown(temporary.c_str(), user->ids.uid, user->ids.gid) != 0)
    throw std::runtime_error("cannot hand " + temporary.string() + " to the cluster's user");
  fs::rename(temporary, file);
}

void writePort(const fs::path& file, int port) {
  std::ofstream out(file, std::ios::trunc);
  out << port << "\n";
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

// What a postmaster.pid says about the server that wrote it.
struct LockFile {
  pid_t pid = 0;
  std::optional<int> shm_id;  // the SysV segment every process of the cluster attaches
};

std::optional<LockFile> readLockFile(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  LockFile lock;
  for (int number = 1; std::getline(in, line); ++number) {
    std::istringstream fields(line);
    if (number == 1) {
      long pid = 0;
      if (!(fields >> pid) || pid <= 0) return std::nullopt;
      lock.pid = static_cast<pid_t>(pid);
    } else if (number == 7) {  // "shmem key  shmem id"
      long key = 0;
      int id = -1;
      if (fields >> key >> id && id >= 0) lock.shm_id = id;
    }
  }
  if (lock.pid == 0) return std::nullopt;
  return lock;
}

// 'Z' for a zombie, 0 when there is no such process.
char processState(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return 0;
  auto close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return 0;
  return stat[close + 2];
}

bool segmentInUse(int shm_id) {
  shmid_ds info{};
  if (::shmctl(shm_id, IPC_STAT, &info) != 0) return errno != EINVAL && errno != EIDRM;
  return info.shm_nattch > 0;
}

// A postmaster killed outright leaves postmaster.pid behind. PostgreSQL discards such a file
// when its PID is gone, but a killed postmaster stays a zombie until init reaps it (some inits
// take seconds, some never do), and a zombie passes its "is that PID alive" check. So: a zombie
// whose shared memory nobody (no orphaned backend) still uses is dead, and its lock files go.
void discardLockFilesOfAZombie(const fs::path& dir, const fs::path& data) {
  const auto lock = readLockFile(data / "postmaster.pid");
  if (!lock) return;
  const char state = processState(lock->pid);
  if (state != 'Z' && state != 'X') return;
  if (lock->shm_id && segmentInUse(*lock->shm_id)) return;
  spdlog::warn(
      "the embedded PostgreSQL's postmaster (PID {}) died without being reaped; "
      "removing its stale lock files",
      lock->pid);
  fs::remove(data / "postmaster.pid");
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(".s.PGSQL.", 0) != 0 || !name.ends_with(".lock")) continue;
    if (auto socket_lock = readLockFile(entry.path());
        socket_lock && socket_lock->pid == lock->pid) {
      fs::remove(entry.path());
    }
  }
}

}  // namespace

std::string findPgBinDir(const std::string& configured) {
  if (!configured.empty()) {
    if (!hasInitdb(configured)) {
      throw std::runtime_error("database.pg_bin_dir: " + configured + " holds no initdb");
    }
    return configured;
  }
  // Only a directory that holds initdb: a bare initdb on PATH may belong to another version.
  if (auto dir = pgConfigBinDir(); dir && hasInitdb(*dir)) return *dir;
  if (auto dir = newestDebianBinDir()) return *dir;
  throw std::runtime_error(
      "no PostgreSQL server programs found (looked at `pg_config --bindir` and "
      "/usr/lib/postgresql/*/bin): install the PostgreSQL server or set database.pg_bin_dir");
}

EmbeddedPostgres::EmbeddedPostgres(std::string dir, DatabaseSettings settings,
                                   std::string server_options, LoopbackAuth auth)
    : dir_(fs::absolute(dir).lexically_normal().string()),
      settings_(std::move(settings)),
      server_options_(std::move(server_options)),
      auth_(auth) {
  if (!dir_.empty() && dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
}

EmbeddedPostgres::~EmbeddedPostgres() {
  try {
    stop();
  } catch (const std::exception& e) {
    spdlog::error("could not stop the embedded PostgreSQL in {}: {}", dir_, e.what());
  }
}

std::string EmbeddedPostgres::start() {
  const fs::path dir = dir_;
  const fs::path data = dir / "data";
  const fs::path log = dir / "postgres.log";
  const fs::path bin = findPgBinDir(settings_.pg_bin_dir);
  const auto user = clusterUser(settings_);

  // The postmaster's socket lives in dir; a path too long for sun_path fails later and obscurely.
  const std::string socket_path = dir_ + "/.s.PGSQL.65535";
  if (socket_path.size() > kMaxSocketPath) {
    throw std::runtime_error("the embedded PostgreSQL directory " + dir_ +
                             " is too long for a unix socket path (at most " +
                             std::to_string(kMaxSocketPath - 16) + " characters)");
  }

  fs::create_directories(dir);
  if (settings_.embedded_port > 0) {
    port_ = settings_.embedded_port;
  } else if (int stored = storedPort(dir / "port")) {
    port_ = stored;
  } else {
    port_ = freeLoopbackPort();
  }
  writePort(dir / "port", port_);

  SpawnOptions as_cluster_user;
  as_cluster_user.cwd = dir_;
  if (user) {
    requireTraversable(dir, *user);
    chownTree(dir, *user);
    as_cluster_user.run_as = user->name;
  }

  if (!fs::exists(data / "PG_VERSION")) {
    auto initdb = [&](const std::string& locale) {
      return runCommand(
          {(bin / "initdb").string(), "-D", data.string(), "-U", kSuperuser, "--auth=trust",
           "--encoding=UTF8", "--locale=" + locale, "--no-instructions"},
          as_cluster_user, std::chrono::minutes(5));
    };
    RunResult result = initdb("C.UTF-8");
    if (!result.status.ok()) {
      // Systems without the C.UTF-8 locale; initdb has removed what it created.
      spdlog::warn("initdb with locale C.UTF-8 failed, retrying with C: {}", result.output);
      result = initdb("C");
    }
    if (!result.status.ok()) {
      throw std::runtime_error("initdb of the embedded PostgreSQL in " + data.string() +
                               " failed: " + result.output);
    }
  }

  // With passwords, every connection gives one, the socket's too: apps may run as the
  // cluster's own user ("nobody" on a machine without "postgres"). Until the superuser has a
  // password (a new cluster, or one made before passwords) the socket trusts, once, to set it.
  const fs::path password_file = dir / "superuser.password";
  const bool password = auth_ == LoopbackAuth::Password;
  const bool bootstrap = password && !fs::exists(password_file);
  writeHba(data, password && !bootstrap ? "scram-sha-256" : "trust",
           password ? "scram-sha-256" : "trust", user);
  if (password) fs::permissions(dir, fs::perms::owner_all);

  const std::vector<std::string> pg_ctl = {(bin / "pg_ctl").string(), "-D", data.string()};
  auto with = [&](std::vector<std::string> argv, std::initializer_list<std::string> more) {
    argv.insert(argv.end(), more);
    return argv;
  };
  // A stale postmaster.pid from a killed run is otherwise handled by pg_ctl and postgres (the
  // PID it names is not alive), so "not running" here is trustworthy.
  discardLockFilesOfAZombie(dir, data);
  RunResult status =
      runCommand(with(pg_ctl, {"status"}), as_cluster_user, std::chrono::seconds(30));
  if (!status.status.ok()) {
    const std::string options = "-c listen_addresses=127.0.0.1 -p " + std::to_string(port_) +
                                " -c unix_socket_directories=" + shellQuoted(dir_) +
                                " -c max_connections=200" +
                                (server_options_.empty() ? "" : " " + server_options_);
    RunResult started =
        runCommand(with(pg_ctl, {"-l", log.string(), "-w", "-t", "60", "-o", options, "start"}),
                   as_cluster_user, std::chrono::seconds(90));
    if (!started.status.ok()) {
      throw std::runtime_error("the embedded PostgreSQL in " + data.string() + " did not start: " +
                               started.output + "\n" + log.string() + ":\n" + logTail(log));
    }
    // Only the process that started the cluster stops it: an admin command run beside a
    // serving berthd joins the cluster and must leave it running.
    started_here_ = true;
  }

  auto reload = [&] {
    RunResult reloaded =
        runCommand(with(pg_ctl, {"reload"}), as_cluster_user, std::chrono::seconds(30));
    if (!reloaded.status.ok())
      throw std::runtime_error("could not reload the embedded PostgreSQL: " + reloaded.output);
    // The postmaster rereads pg_hba.conf on the signal, a moment after pg_ctl returns.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  };
  // A cluster this process joined loads the pg_hba.conf just written.
  if (!started_here_) reload();
  const std::string secret = password && !bootstrap ? superuserPassword(password_file) : "";

  // The socket needs no free TCP port, and is there as soon as pg_ctl returns.
  Pool admin("host=" + conninfoQuoted(dir_) + " port=" + std::to_string(port_) +
                 " user=" + kSuperuser + (secret.empty() ? "" : " password=" + secret) +
                 " dbname=postgres connect_timeout=10",
             1, std::chrono::seconds(10));
  if (admin.exec("SELECT 1 FROM pg_database WHERE datname = $1", {kDatabase}).rows() == 0) {
    try {
      admin.exec(std::string("CREATE DATABASE ") + kDatabase);
    } catch (const DbError& e) {
      if (e.sqlstate() != "42P04") throw;  // duplicate_database: made meanwhile, fine
    }
  }
  std::string credentials = kSuperuser;
  if (bootstrap) {
    const std::string made = superuserPassword(password_file);
    admin.exec(std::string("ALTER ROLE ") + kSuperuser + " PASSWORD '" + made + "'");
    writeHba(data, "scram-sha-256", "scram-sha-256", user);
    reload();
    spdlog::info("the embedded PostgreSQL now asks every connection for a password");
    credentials += ":" + made;
  } else if (password) {
    credentials += ":" + secret;
  }
  url_ = "postgresql://" + credentials + "@127.0.0.1:" + std::to_string(port_) + "/" + kDatabase;
  return url_;
}

void EmbeddedPostgres::stop() {
  if (!started_here_) return;
  const fs::path data = fs::path(dir_) / "data";
  const fs::path bin = findPgBinDir(settings_.pg_bin_dir);
  SpawnOptions as_cluster_user;
  as_cluster_user.cwd = dir_;
  if (auto user = clusterUser(settings_)) as_cluster_user.run_as = user->name;

  // pg_ctl would signal a killed postmaster's zombie and wait a minute for it to go.
  discardLockFilesOfAZombie(dir_, data);
  RunResult stopped =
      runCommand({(bin / "pg_ctl").string(), "-D", data.string(), "-m", "fast", "-w", "stop"},
                 as_cluster_user, std::chrono::seconds(90));
  if (!stopped.status.ok()) {
    // Already gone (killed, or stopped by hand) is what we wanted.
    RunResult status = runCommand({(bin / "pg_ctl").string(), "-D", data.string(), "status"},
                                  as_cluster_user, std::chrono::seconds(30));
    if (status.status.ok()) {
      throw std::runtime_error("could not stop the embedded PostgreSQL in " + data.string() + ": " +
                               stopped.output);
    }
  }
  started_here_ = false;
}

}  // namespace berth::core
