#include "edge_tree.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <system_error>

namespace berth::storage {
namespace {

namespace fs = std::filesystem;

// A name beside `target` that no stored file has: stored paths cannot contain a NUL or control
// characters, and a segment of ours starts with ".berth-tmp-" only here.
std::string temporaryBeside(const std::string& target) {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  return fs::path(target).parent_path().string() + "/.berth-tmp-" + std::to_string(random());
}

bool makeParents(const fs::path& file) {
  std::error_code error;
  fs::create_directories(file.parent_path(), error);
  return !error;
}

}  // namespace

EdgeTree::EdgeTree(std::string root) : root_(std::move(root)) {
  std::error_code error;
  for (const char* sub : {"/hosts", "/projects"}) {
    fs::create_directories(root_ + sub, error);
    if (error)
      throw berth::Error(
          500, "storage: cannot make the edge tree " + root_ + sub + ": " + error.message());
    ::chmod((root_ + sub).c_str(), 0755);
  }
  ::chmod(root_.c_str(), 0755);
}

void EdgeTree::writeTypes(const MimeTable& table) const {
  const std::string target = typesFile();
  const std::string temporary = temporaryBeside(target);
  const std::string text = table.nginxTypes();
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw berth::Error(500, "storage: cannot write " + target + ": " + strerror(errno));
  bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!written || ::rename(temporary.c_str(), target.c_str()) != 0) {
    ::unlink(temporary.c_str());
    throw berth::Error(500, "storage: cannot write " + target);
  }
}

std::optional<std::string> EdgeTree::hostFolder(const std::string& host) {
  std::string name = host;
  if (size_t colon = name.rfind(':'); colon != std::string::npos) name.resize(colon);
  if (!name.empty() && name.back() == '.') name.pop_back();
  if (name.empty() || name.size() > 253 || name.front() == '.' || name.front() == '-' ||
      name.find("..") != std::string::npos)
    return std::nullopt;
  for (char& c : name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'))
      return std::nullopt;
  }
  return name;
}

std::string EdgeTree::projectDir(const std::string& project_id) const {
  return root_ + "/projects/" + project_id;
}

bool EdgeTree::linkHost(const std::string& host, const std::string& project_id,
                        uint64_t lookup_began) const {
  std::optional<std::string> folder = hostFolder(host);
  if (!folder || project_id.empty() || project_id.find('/') != std::string::npos) return false;
  std::shared_lock guard(hosts_lock_);
  if (!trusted_ || host_generation_.load() != lookup_began) return false;
  const std::string link = hostsDir() + "/" + *folder;
  const std::string target = "../projects/" + project_id;
  std::error_code error;
  if (fs::read_symlink(link, error).string() == target) return true;
  fs::create_directories(projectDir(project_id), error);
  ::chmod(projectDir(project_id).c_str(), 0755);
  const std::string temporary = temporaryBeside(link);
  if (::symlink(target.c_str(), temporary.c_str()) != 0) return false;
  if (::rename(temporary.c_str(), link.c_str()) != 0) {
    ::unlink(temporary.c_str());
    return false;
  }
  return true;
}

bool EdgeTree::publish(const std::string& project_id, const std::string& path,
                       const std::string& object_file) const {
  if (!trusted_) return false;
  const std::string target = projectDir(project_id) + "/" + path;
  if (!makeParents(target)) return false;  // a stored file named like one of its folders
  const std::string temporary = temporaryBeside(target);
  if (::link(object_file.c_str(), temporary.c_str()) != 0) return false;
  if (::rename(temporary.c_str(), target.c_str()) != 0) {  // a folder of that name
    ::unlink(temporary.c_str());
    return false;
  }
  // rename() of two links to one inode (a file published again) does nothing and succeeds,
  // leaving the temporary: a third link that would keep an evicted copy's bytes alive.
  ::unlink(temporary.c_str());
  return true;
}

void EdgeTree::unpublish(const std::string& project_id, const std::string& path) const {
  const fs::path project = projectDir(project_id);
  fs::path target = project / path;
  ::unlink(target.c_str());
  // Empty folders would block a stored file of the same name.
  for (fs::path folder = target.parent_path(); folder != project && folder.has_parent_path();
       folder = folder.parent_path()) {
    if (::rmdir(folder.c_str()) != 0) break;
  }
}

bool EdgeTree::unpublishUnless(const std::string& project_id, const std::string& path,
                               const std::optional<std::string>& current) const {
  const std::string entry = projectDir(project_id) + "/" + path;
  struct stat linked {};
  if (::lstat(entry.c_str(), &linked) != 0) return false;
  struct stat wanted {};
  if (current && ::stat(current->c_str(), &wanted) == 0 && wanted.st_dev == linked.st_dev &&
      wanted.st_ino == linked.st_ino)
    return false;
  // A link made meanwhile for the current bytes may go too: that costs one miss.
  unpublish(project_id, path);
  return true;
}

std::vector<std::string> EdgeTree::publishedPaths(const std::string& project_id) const {
  std::vector<std::string> paths;
  if (project_id.empty() || project_id.find('/') != std::string::npos) return paths;
  const fs::path project = projectDir(project_id);
  std::error_code error;
  for (fs::recursive_directory_iterator it(project, error), end; !error && it != end;
       it.increment(error)) {
    if (it->path().filename().string().starts_with(".berth-tmp-")) continue;
    std::error_code ignored;
    if (it->is_regular_file(ignored))
      paths.push_back(it->path().lexically_relative(project).generic_string());
  }
  return paths;
}

void EdgeTree::forgetHosts(const std::string& project_id) const {
  std::unique_lock guard(hosts_lock_);
  ++host_generation_;
  forgetHostsLocked(project_id);
}

void EdgeTree::forgetHostsLocked(const std::string& project_id) const {
  const std::string target = "../projects/" + project_id;
  std::error_code error;
  for (fs::directory_iterator it(hostsDir(), error), end; !error && it != end;
       it.increment(error)) {
    std::error_code ignored;
    if (fs::read_symlink(it->path(), ignored).string() == target) fs::remove(it->path(), ignored);
  }
}

void EdgeTree::removeProject(const std::string& project_id) const {
  if (project_id.empty() || project_id.find('/') != std::string::npos) return;
  forgetHosts(project_id);
  std::error_code error;
  fs::remove_all(projectDir(project_id), error);
}

void EdgeTree::trust(bool heard) {
  trusted_ = heard;
  dropAll();
}

void EdgeTree::dropAll() const {
  std::unique_lock guard(hosts_lock_);
  ++host_generation_;
  std::error_code error;
  for (const char* sub : {"/hosts", "/projects"}) {
    for (fs::directory_iterator it(root_ + sub, error), end; !error && it != end;
         it.increment(error)) {
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
    }
  }
}

size_t EdgeTree::sweep() const {
  size_t removed = 0;
  std::error_code error;
  const auto options = fs::directory_options::skip_permission_denied;
  for (fs::recursive_directory_iterator it(root_ + "/projects", options, error), end;
       !error && it != end; it.increment(error)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    // A publish a crash interrupted (one in progress loses its rename and says so).
    if (it->path().filename().string().starts_with(".berth-tmp-")) {
      if (::unlink(it->path().c_str()) == 0) ++removed;
      continue;
    }
    // Only the tree holds it: the object was removed (a replace, a delete, a sweep).
    if (st.st_nlink < 2 && ::unlink(it->path().c_str()) == 0) ++removed;
  }
  return removed;
}

}  // namespace berth::storage
