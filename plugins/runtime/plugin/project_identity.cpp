#include "project_identity.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <filesystem>
#include <system_error>

namespace berth::runtime {

namespace {

namespace fs = std::filesystem;

// The lowest free uid of the range, taken in one statement. Two berthds (or two threads)
// choosing the same number: the UNIQUE index lets one insert and the other insert nothing
// (ON CONFLICT DO NOTHING covers both unique columns), and that one tries again. The second
// column says whether the range had a free uid at all.
constexpr const char* kAllocateSql = R"(
WITH candidate AS (
  SELECT c FROM (
    SELECT $2::int AS c
     WHERE NOT EXISTS (SELECT 1 FROM runtime.runtime_project_uids WHERE uid = $2::int)
    UNION ALL
    SELECT u.uid + 1 FROM runtime.runtime_project_uids u
     WHERE u.uid >= $2::int AND u.uid < $3::int
       AND NOT EXISTS (SELECT 1 FROM runtime.runtime_project_uids n WHERE n.uid = u.uid + 1)
  ) free
  ORDER BY c LIMIT 1
), inserted AS (
  INSERT INTO runtime.runtime_project_uids (project_id, uid)
  SELECT $1, c FROM candidate
  ON CONFLICT DO NOTHING
  RETURNING uid
)
SELECT (SELECT uid FROM inserted)::bigint, (SELECT count(*) FROM candidate)::bigint)";

std::string errnoText(int err) {
  return std::error_code(err, std::generic_category()).message();
}

}  // namespace

std::optional<UidRange> parseUidRange(const std::string& text) {
  const auto dash = text.find('-');
  if (dash == std::string::npos) return std::nullopt;
  unsigned long long first = 0, last = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto a = std::from_chars(begin, begin + dash, first);
  auto b = std::from_chars(begin + dash + 1, end, last);
  if (a.ec != std::errc() || a.ptr != begin + dash || b.ec != std::errc() || b.ptr != end)
    return std::nullopt;
  if (first < 1 || first > last || last >= (1ull << 31)) return std::nullopt;
  return UidRange{static_cast<unsigned>(first), static_cast<unsigned>(last)};
}

unsigned ProjectIdentities::allocate(const std::string& project_id) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    auto found = services_.db().exec(
        "SELECT uid::bigint FROM runtime.runtime_project_uids WHERE project_id = $1", project_id);
    if (found.rows() > 0) return static_cast<unsigned>(found.get<std::int64_t>(0, 0));
    auto r = services_.db().exec(kAllocateSql, project_id, static_cast<std::int64_t>(range_.first),
                                 static_cast<std::int64_t>(range_.last));
    if (auto uid = r.get<std::optional<std::int64_t>>(0, 0)) return static_cast<unsigned>(*uid);
    if (r.get<std::int64_t>(0, 1) == 0)
      throw berth::Error::unavailable(
          "every uid of runtime.uid_range (" + std::to_string(range_.first) + "-" +
          std::to_string(range_.last) + ") belongs to a project; widen the range");
    // Another project took that uid at the same moment (or this one got its row): again.
  }
  throw berth::Error::unavailable("no uid could be given to the project; try again");
}

void ProjectIdentities::makeHome(const std::string& home, const RunAs& ids) const {
  const bool root = ::geteuid() == 0;
  fs::create_directories(homes_dir_);
  // Passable, not listable: a process of one project (outside the sandbox) reaches its own
  // folder and cannot see which others exist.
  ::chmod(homes_dir_.c_str(), 0711);
  const int homes = ::open(homes_dir_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (homes < 0)
    throw berth::Error::internal("cannot open " + homes_dir_ + ": " + errnoText(errno));
  const std::string name = fs::path(home).filename().string();
  if (::mkdirat(homes, name.c_str(), 0700) != 0 && errno != EEXIST) {
    const int err = errno;
    ::close(homes);
    throw berth::Error::internal("cannot create " + home + ": " + errnoText(err));
  }
  // The project owns what is inside: nothing there is followed (it could be a link it made).
  const int dir = ::openat(homes, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  ::close(homes);
  if (dir < 0) throw berth::Error::internal("cannot open " + home + ": " + errnoText(errno));
  if (root) ::fchown(dir, ids.uid, ids.gid);
  ::fchmod(dir, 0700);
  if (::mkdirat(dir, "tmp", 0700) == 0 && root)
    ::fchownat(dir, "tmp", ids.uid, ids.gid, AT_SYMLINK_NOFOLLOW);
  ::close(dir);
}

ProjectIdentity ProjectIdentities::of(const std::string& project_id) {
  if (project_id.empty() || project_id.find('/') != std::string::npos || project_id[0] == '.')
    throw berth::Error::internal("not a project id: " + project_id);
  unsigned uid = 0;
  {
    std::lock_guard lock(mutex_);
    auto it = known_.find(project_id);
    if (it != known_.end()) uid = it->second;
  }
  if (uid == 0) {
    uid = allocate(project_id);
    std::lock_guard lock(mutex_);
    known_[project_id] = uid;
  }
  ProjectIdentity identity{RunAs{static_cast<uid_t>(uid), static_cast<gid_t>(uid)},
                           homes_dir_ + "/" + project_id};
  makeHome(identity.home, identity.ids);
  return identity;
}

void ProjectIdentities::remove(const std::string& project_id) {
  if (project_id.empty() || project_id.find('/') != std::string::npos || project_id[0] == '.')
    return;
  {
    std::lock_guard lock(mutex_);
    known_.erase(project_id);
  }
  std::error_code ignored;
  fs::remove_all(homes_dir_ + "/" + project_id, ignored);  // links are removed, never followed
  services_.db().exec("DELETE FROM runtime.runtime_project_uids WHERE project_id = $1", project_id);
}

std::vector<std::string> ProjectIdentities::removeOrphans(
    const std::function<bool(const std::string&)>& exists) {
  std::vector<std::string> candidates;
  std::error_code ec;
  for (auto entry = fs::directory_iterator(homes_dir_, ec);
       !ec && entry != fs::directory_iterator(); entry.increment(ec)) {
    const std::string id = entry->path().filename().string();
    if (id.empty() || id[0] == '.') continue;
    std::lock_guard lock(mutex_);
    if (!known_.count(id)) candidates.push_back(id);
  }
  std::vector<std::string> removed;
  for (const auto& id : candidates) {
    if (exists(id)) continue;
    {
      std::lock_guard lock(mutex_);
      if (known_.count(id)) continue;  // taken into use meanwhile
    }
    remove(id);
    removed.push_back(id);
  }
  return removed;
}

}  // namespace berth::runtime
