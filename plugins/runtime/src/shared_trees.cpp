#include "shared_trees.hpp"

#include <berth/util/unix_time.hpp>

#include "random_hex.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <berth/error.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <system_error>
#include <vector>

#include "release_build.hpp"

namespace berth::runtime {

namespace {

namespace fs = std::filesystem;
namespace contract = berth::runtime_shared_trees;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kCutMark = "(earlier output cut)\n";
constexpr const char* kOnlyFiles = "; a shared tree's source may hold only files and folders";

std::string errnoText(int err) {
  return std::error_code(err, std::generic_category()).message();
}

std::string joined(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

std::string secondsText(Clock::duration d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f",
                std::chrono::duration_cast<std::chrono::milliseconds>(d).count() / 1000.0);
  return text;
}

std::vector<std::string> namesIn(int dir_fd) {
  std::vector<std::string> names;
  const int list_fd = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  DIR* dir = list_fd >= 0 ? ::fdopendir(list_fd) : nullptr;
  if (!dir) {
    if (list_fd >= 0) ::close(list_fd);
    throw std::runtime_error("cannot read a folder: " + errnoText(errno));
  }
  while (dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(dir);
  return names;
}

void copyFile(int from_fd, int to_fd, const std::string& name, const std::string& shown,
              mode_t mode) {
  const int in = ::openat(from_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (in < 0) throw std::runtime_error("cannot read " + shown + ": " + errnoText(errno));
  const int out =
      ::openat(to_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (out < 0) {
    const int err = errno;
    ::close(in);
    throw std::runtime_error("cannot copy " + shown + ": " + errnoText(err));
  }
  char buffer[65536];
  for (;;) {
    const ssize_t got = ::read(in, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got == 0) break;
    bool ok = got > 0;
    for (ssize_t done = 0; ok && done < got;) {
      const ssize_t put = ::write(out, buffer + done, static_cast<std::size_t>(got - done));
      if (put < 0 && errno == EINTR) continue;
      ok = put > 0;
      done += put > 0 ? put : 0;
    }
    if (!ok) {
      const int err = errno;
      ::close(in);
      ::close(out);
      throw std::runtime_error("cannot copy " + shown + ": " + errnoText(err));
    }
  }
  ::fchmod(out, mode);  // whatever the umask took away
  ::close(in);
  ::close(out);
}

// One folder of a source, by descriptor: nothing below it is reached through a link. With
// `to_fd` >= 0 it is copied there too; a refusal is thrown.
void walkSource(int from_fd, const std::string& shown, int to_fd) {
  for (const auto& name : namesIn(from_fd)) {
    const std::string path = shown + "/" + name;
    struct stat st {};
    if (::fstatat(from_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      throw std::runtime_error("cannot read " + path + ": " + errnoText(errno));
    if (S_ISLNK(st.st_mode)) throw std::runtime_error(path + " is a link" + kOnlyFiles);
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
      throw std::runtime_error(path + " is a device file, fifo or socket" + kOnlyFiles);
    if (S_ISREG(st.st_mode)) {
      if (to_fd >= 0) copyFile(from_fd, to_fd, name, path, (st.st_mode & 0111) ? 0755 : 0644);
      continue;
    }
    const int sub =
        ::openat(from_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) throw std::runtime_error("cannot read " + path + ": " + errnoText(errno));
    int sub_to = -1;
    if (to_fd >= 0) {
      if (::mkdirat(to_fd, name.c_str(), 0755) == 0)
        sub_to = ::openat(to_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub_to < 0) {
        const int err = errno;
        ::close(sub);
        throw std::runtime_error("cannot copy " + path + ": " + errnoText(err));
      }
      ::fchmod(sub_to, 0755);
    }
    try {
      walkSource(sub, path, sub_to);
    } catch (...) {
      ::close(sub);
      if (sub_to >= 0) ::close(sub_to);
      throw;
    }
    ::close(sub);
    if (sub_to >= 0) ::close(sub_to);
  }
}

int openSource(const std::string& source) {
  struct stat st {};
  if (::lstat(source.c_str(), &st) != 0) throw std::runtime_error("no folder at " + source);
  if (S_ISLNK(st.st_mode)) throw std::runtime_error(source + " is a link" + kOnlyFiles);
  if (!S_ISDIR(st.st_mode)) throw std::runtime_error(source + " is not a folder");
  const int fd = ::open(source.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot read " + source + ": " + errnoText(errno));
  return fd;
}

// A folder berthd owns (it exists afterwards, not as a link), with `mode`.
void makeOwnFolder(const std::string& path, mode_t mode) {
  if (::mkdir(path.c_str(), mode) != 0 && errno != EEXIST)
    throw std::runtime_error("cannot create " + path + ": " + errnoText(errno));
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw std::runtime_error(path + " is not a folder");
  ::chmod(path.c_str(), mode);
}

std::string recordPath(const std::string& dir, const std::string& name) {
  return dir + "/.records/" + name + ".json";
}

}  // namespace

std::optional<std::string> sourceProblem(const std::string& source) {
  try {
    const int fd = openSource(source);
    try {
      walkSource(fd, source, -1);
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
  } catch (const std::exception& e) {
    return e.what();
  }
  return std::nullopt;
}

void copySource(const std::string& source, const std::string& into) {
  const int from = openSource(source);
  const int to = ::open(into.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (to < 0) {
    const int err = errno;
    ::close(from);
    throw std::runtime_error("cannot open " + into + ": " + errnoText(err));
  }
  try {
    walkSource(from, source, to);
  } catch (...) {
    ::close(from);
    ::close(to);
    throw;
  }
  ::close(from);
  ::close(to);
}

void SharedTrees::makeFolders() const {
  fs::create_directories(settings_.dir);  // made at start (0755) unless removed since
  makeOwnFolder(buildingPath(), 0711);    // the build's uid reaches its folder inside
  makeOwnFolder(settings_.dir + "/.records", 0700);
  // The builds' HOME belongs to the build uid; berthd never follows anything inside it.
  const std::string home = homePath();
  if (::mkdir(home.c_str(), 0700) != 0 && errno != EEXIST)
    throw std::runtime_error("cannot create " + home + ": " + errnoText(errno));
  const int fd = ::open(home.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + home + ": " + errnoText(errno));
  if (::geteuid() == 0 && settings_.build_as)
    ::fchown(fd, settings_.build_as->uid, settings_.build_as->gid);
  ::fchmod(fd, 0700);
  if (::mkdirat(fd, "tmp", 0700) == 0 && ::geteuid() == 0 && settings_.build_as)
    ::fchownat(fd, "tmp", settings_.build_as->uid, settings_.build_as->gid, AT_SYMLINK_NOFOLLOW);
  ::close(fd);
}

void SharedTrees::sweep() {
  std::error_code ec;
  std::vector<fs::path> leftovers;
  for (auto it = fs::directory_iterator(buildingPath(), ec); !ec && it != fs::directory_iterator();
       it.increment(ec))
    leftovers.push_back(it->path());
  for (const auto& path : leftovers) {
    std::error_code ignored;
    fs::remove_all(path, ignored);  // links are removed, never followed
    info("removed a shared tree an earlier berthd did not finish building: " + path.string());
  }
}

SharedTree SharedTrees::snapshot(const Entry& entry) const {
  SharedTree tree = entry.tree;
  if (entry.log_cut) tree.log = std::string(kCutMark) + tree.log;
  return tree;
}

SharedTrees::Entry* SharedTrees::fromDisk(const std::string& name) {
  struct stat st {};
  const std::string path = treePath(name);
  if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return nullptr;
  Entry& entry = entries_[name];
  entry.tree = SharedTree{
      name, path, std::string(contract::kReady), st.st_mtime, st.st_mtime, std::nullopt, ""};
  entry.log_cut = false;
  // What the build recorded (written before the rename, so a tree there has one unless an
  // operator removed it).
  std::ifstream in(recordPath(settings_.dir, name));
  const nlohmann::json record = nlohmann::json::parse(in, nullptr, false);
  if (record.is_object()) {
    const auto started = record.find("started_at");
    const auto finished = record.find("finished_at");
    const auto log = record.find("log");
    if (started != record.end() && started->is_number_integer())
      entry.tree.started_at = started->get<std::int64_t>();
    if (finished != record.end() && finished->is_number_integer())
      entry.tree.finished_at = finished->get<std::int64_t>();
    if (log != record.end() && log->is_string()) entry.tree.log = log->get<std::string>();
  }
  return &entry;
}

std::optional<SharedTree> SharedTrees::get(const std::string& name) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(name);
  if (it != entries_.end() && it->second.tree.state == contract::kReady) {
    struct stat st {};
    // Removed by an operator since: read again from the disk (nothing there: none).
    if (::lstat(it->second.tree.path.c_str(), &st) != 0) {
      if (it->second.thread.joinable()) it->second.thread.join();  // it ended: it was ready
      entries_.erase(it);
      it = entries_.end();
    }
  }
  if (it != entries_.end()) return snapshot(it->second);
  if (Entry* entry = fromDisk(name)) return snapshot(*entry);
  return std::nullopt;
}

SharedTree SharedTrees::ensure(const EnsureTree& request) {
  if (stopping_)
    throw berth::Error::unavailable(
        "berthd is stopping; ensure the tree again once it has started");
  if (auto now = get(request.name); now && now->state != contract::kFailed) return *now;
  // Checked before anything starts, so a bad source is the caller's 400 (the copy checks again).
  if (auto problem = sourceProblem(request.source)) throw berth::Error::badRequest(*problem);
  std::thread finished;  // a failed build's ended thread, joined outside the lock
  SharedTree answer;
  {
    std::lock_guard lock(mutex_);
    if (stopping_)
      throw berth::Error::unavailable(
          "berthd is stopping; ensure the tree again once it has started");
    // Another ensure started it meanwhile: one build.
    if (auto it = entries_.find(request.name);
        it != entries_.end() && it->second.tree.state != contract::kFailed)
      return snapshot(it->second);
    Entry& entry = entries_[request.name];
    finished = std::move(entry.thread);
    entry.tree = SharedTree{request.name,
                            treePath(request.name),
                            std::string(contract::kBuilding),
                            berth::unixSeconds(),
                            std::nullopt,
                            std::nullopt,
                            ""};
    entry.log_cut = false;
    entry.thread = std::thread([this, request] { build(request.name, request); });
    answer = snapshot(entry);
  }
  if (finished.joinable()) finished.join();
  return answer;
}

void SharedTrees::finish(const std::string& name, const std::optional<std::string>& error) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(name);
  if (it == entries_.end()) return;
  it->second.tree.finished_at = berth::unixSeconds();
  it->second.tree.state = std::string(error ? contract::kFailed : contract::kReady);
  it->second.tree.error = error;
}

void SharedTrees::build(std::string name, EnsureTree request) {
  const auto began = Clock::now();
  info("shared tree " + name + ": build started (" + joined(request.command) + ")");
  const std::string building = buildingPath() + "/" + name + "-" + randomHex(8);
  std::optional<std::string> error;
  try {
    makeFolders();
    makeOwnFolder(building, 0755);
    copySource(request.source, building);
    const bool root = ::geteuid() == 0;
    if (root) {
      if (!settings_.build_as) throw std::runtime_error("no user to run the build as");
      if (auto problem = giveTreeTo(building, *settings_.build_as))
        throw std::runtime_error(*problem);
    }
    std::map<std::string, std::string> env = {
        {"PATH", building + "/node_modules/.bin:/usr/local/bin:/usr/bin:/bin"},
        {"LANG", "C.UTF-8"},
        {"npm_config_audit", "false"},
        {"npm_config_fund", "false"},
        {"npm_config_update_notifier", "false"}};
    for (const auto& [key, value] : request.environment) env[key] = value;
    env["HOME"] = homePath();
    env["TMPDIR"] = homePath() + "/tmp";
    BuildLimits limits;
    limits.timeout = std::chrono::seconds(request.timeout_seconds);
    limits.max_log_bytes = contract::kLogBytes;
    limits.cancel = &stopping_;
    CommandIo io;
    // The log grows while it builds: get() shows the end of the output so far.
    io.on_output = [this, &name](std::string_view piece) {
      std::lock_guard lock(mutex_);
      auto it = entries_.find(name);
      if (it == entries_.end()) return;
      std::string& log = it->second.tree.log;
      log.append(piece);
      if (log.size() > contract::kLogBytes) {
        log.erase(0, log.size() - contract::kLogBytes);
        it->second.log_cut = true;
      }
    };
    CommandRun run = runBuildCommand(request.command, SandboxMounts{building, true, homePath(), {}},
                                     env, settings_.build_as, limits, settings_.sandbox, io);
    // Taken back whatever the outcome: on failure it is removed below as berthd's.
    auto sealed = sealRelease(
        building, root ? std::optional<RunAs>(RunAs{::geteuid(), ::getegid()}) : std::nullopt);
    if (!run.ok) throw std::runtime_error(run.error);
    if (sealed) throw std::runtime_error(*sealed);
    // The record first, then the tree: a tree at its final path always has its record.
    nlohmann::json record;
    {
      std::lock_guard lock(mutex_);
      auto it = entries_.find(name);
      record = {
          {"started_at", it != entries_.end() ? it->second.tree.started_at : berth::unixSeconds()},
          {"finished_at", berth::unixSeconds()},
          {"log", it != entries_.end() ? snapshot(it->second).log : std::string()}};
    }
    const std::string record_file = recordPath(settings_.dir, name);
    {
      std::ofstream out(record_file + ".new", std::ios::trunc);
      out << record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      if (!out) throw std::runtime_error("cannot write " + record_file);
    }
    if (::rename((record_file + ".new").c_str(), record_file.c_str()) != 0)
      throw std::runtime_error("cannot write " + record_file + ": " + errnoText(errno));
    // RENAME_NOREPLACE: a tree already there is never replaced.
    if (::renameat2(AT_FDCWD, building.c_str(), AT_FDCWD, treePath(name).c_str(),
                    RENAME_NOREPLACE) != 0)
      throw std::runtime_error("cannot move the tree to " + treePath(name) + ": " +
                               errnoText(errno));
  } catch (const std::exception& e) {
    error = e.what();
    std::error_code ignored;
    fs::remove_all(building, ignored);
  }
  finish(name, error);
  if (error)
    info("shared tree " + name + " failed to build after " + secondsText(Clock::now() - began) +
         " s: " + *error);
  else
    info("shared tree " + name + " is ready at " + treePath(name) + " (built in " +
         secondsText(Clock::now() - began) + " s)");
}

bool SharedTrees::building() {
  std::lock_guard lock(mutex_);
  for (const auto& [name, entry] : entries_)
    if (entry.tree.state == contract::kBuilding) return true;
  return false;
}

void SharedTrees::stop() {
  stopping_ = true;
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    for (auto& [name, entry] : entries_)
      if (entry.thread.joinable()) threads.push_back(std::move(entry.thread));
  }
  for (auto& thread : threads) thread.join();
}

}  // namespace berth::runtime
