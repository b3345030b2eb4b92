#include "gateway_edge_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include "gateway_edge_apps.hpp"
#include "static_site.hpp"

namespace berth::runtime {
namespace {

namespace fs = std::filesystem;

// The extensions of static_site's table (contentTypeFor gives their types).
constexpr std::array<const char*, 31> kExtensions = {
    "html", "htm", "css",  "js",   "mjs",  "json", "map", "txt",  "md",         "xml",   "svg",
    "png",  "jpg", "jpeg", "gif",  "webp", "avif", "ico", "wasm", "woff",       "woff2", "ttf",
    "otf",  "pdf", "mp4",  "webm", "mp3",  "ogg",  "wav", "zip",  "webmanifest"};

// An entry is named by the host: only plain DNS names, so a name is never a path.
bool plainHost(const std::string& host) {
  if (host.empty() || host.size() > 253 || host.front() == '.' || host.front() == '-' ||
      host.find("..") != std::string::npos)
    return false;
  for (char c : host)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) return false;
  return true;
}

std::string randomSuffix() {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  return std::to_string(random());
}

void writeFileAtomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp-" + randomSuffix();
  {
    FILE* out = std::fopen(temporary.c_str(), "we");
    if (!out) throw std::runtime_error("cannot write " + temporary + ": " + std::strerror(errno));
    const bool ok = std::fwrite(text.data(), 1, text.size(), out) == text.size();
    if (std::fclose(out) != 0 || !ok) {
      ::unlink(temporary.c_str());
      throw std::runtime_error("cannot write " + temporary);
    }
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temporary.c_str());
    throw std::runtime_error("cannot rename " + temporary + ": " + why);
  }
}

}  // namespace

std::string edgeTypesText() {
  std::string text = "types {\n";
  for (const char* extension : kExtensions)
    text += "  \"" + contentTypeFor(std::string("f.") + extension) + "\" " + extension + ";\n";
  return text + "}\n";
}

void EdgeFiles::ensureStarted() {
  std::lock_guard lock(mutex_);
  if (started_) return;
  started_ = true;
  auto logger = context_.logger();
  try {
    std::error_code ec;
    fs::remove_all(root(), ec);  // a cache: whatever an earlier berthd left may be untrue
    fs::create_directories(root());
    // nginx's workers (another user when berthd is root) walk through it to the releases.
    fs::permissions(root(), fs::perms(0755));
    fs::permissions(context_.data_dir + "/runtime", fs::perms(0755));
    writeFileAtomically(typesFile(), edgeTypesText());
    ::chmod(typesFile().c_str(), 0644);
    context_.services->setEdgeFiles({berth::EdgeFilesRule{"/", root(), "index.html", typesFile()}});
    enabled_ = true;
  } catch (const std::exception& e) {
    // berthd keeps answering static releases itself, as before.
    logger.error(std::string("the edge does not serve static releases by itself: ") + e.what());
  }
}

bool EdgeFiles::link(const std::string& host, const std::string& release_dir) {
  const std::string entry = root() + "/" + host;
  char current[4096];
  const ssize_t length = ::readlink(entry.c_str(), current, sizeof current);
  if (length > 0 && std::string(current, static_cast<std::size_t>(length)) == release_dir)
    return true;
  const std::string temporary = root() + "/." + host + ".tmp-" + randomSuffix();
  if (::symlink(release_dir.c_str(), temporary.c_str()) != 0 ||
      ::rename(temporary.c_str(), entry.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temporary.c_str());
    ::unlink(entry.c_str());  // better no entry (berthd answers) than an untrue one
    context_.logger().error("edge file tree: cannot link " + entry + ": " + why);
    return false;
  }
  return true;
}

void EdgeFiles::unlink(const std::string& host) {
  const std::string entry = root() + "/" + host;
  if (::unlink(entry.c_str()) != 0 && errno != ENOENT)
    context_.logger().error("edge file tree: cannot remove " + entry + ": " + std::strerror(errno));
}

void EdgeFiles::serving(const std::string& project_id, const std::vector<std::string>& hosts,
                        const std::string& release_dir) {
  ensureStarted();
  std::lock_guard lock(mutex_);
  if (!enabled_) return;
  Site& site = sites_[project_id];
  if (site.release_dir != release_dir) {
    // The gateway read another live release than the one the entries show: follow it.
    std::set<std::string> linked;
    for (const auto& host : site.hosts)
      if (link(host, release_dir)) linked.insert(host);
    site.hosts = std::move(linked);
    site.release_dir = release_dir;
  }
  for (const auto& raw : hosts) {
    const std::string host = edgeHostName(raw);
    if (!plainHost(host) || site.hosts.contains(host)) continue;
    // A host that moved here from another project is this one's now.
    for (auto& [id, other] : sites_)
      if (id != project_id) other.hosts.erase(host);
    if (link(host, release_dir)) site.hosts.insert(host);
  }
  std::erase_if(sites_, [](const auto& entry) { return entry.second.hosts.empty(); });
}

void EdgeFiles::liveChanged(const std::string& project_id, const std::string& static_dir) {
  std::lock_guard lock(mutex_);
  auto found = sites_.find(project_id);
  if (found == sites_.end()) return;
  Site& site = found->second;
  if (static_dir.empty()) {
    for (const auto& host : site.hosts) unlink(host);
    sites_.erase(found);
    return;
  }
  std::set<std::string> linked;
  for (const auto& host : site.hosts)
    if (link(host, static_dir)) linked.insert(host);
  site.hosts = std::move(linked);
  site.release_dir = static_dir;
  if (site.hosts.empty()) sites_.erase(found);
}

void EdgeFiles::forget(const std::string& project_id) {
  std::lock_guard lock(mutex_);
  auto found = sites_.find(project_id);
  if (found == sites_.end()) return;
  for (const auto& host : found->second.hosts) unlink(host);
  sites_.erase(found);
}

void EdgeFiles::keepHosts(const HostBelongs& belongs) {
  const std::vector<HostOfProject> gone = hostsGone(hosts(), belongs);  // outside the lock
  if (gone.empty()) return;
  std::lock_guard lock(mutex_);
  for (const auto& [host, id] : gone) {
    auto found = sites_.find(id);
    if (found == sites_.end() || found->second.hosts.erase(host) == 0) continue;
    unlink(host);
    if (found->second.hosts.empty()) sites_.erase(found);
  }
}

std::vector<HostOfProject> EdgeFiles::hosts() const {
  std::lock_guard lock(mutex_);
  return hostsOf(sites_);
}

}  // namespace berth::runtime
