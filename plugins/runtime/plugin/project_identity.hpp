// Who a project's processes are on this machine: its own uid and gid (the same number, from
// runtime.uid_range, recorded in runtime_project_uids so every node agrees) and its one
// writable folder <data_dir>/runtime/homes/<project id>/ (HOME, with tmp/ as TMPDIR), owned by
// that uid, mode 0700, outside every release.
#pragma once
#include <berth/plugin.hpp>

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace berth::runtime {

struct UidRange {
  unsigned first = 200000;
  unsigned last = 265535;
};

// "200000-265535" -> {200000, 265535}; nullopt unless 1 <= first <= last < 2^31.
std::optional<UidRange> parseUidRange(const std::string& text);

struct ProjectIdentity {
  RunAs ids;         // uid == gid
  std::string home;  // <data_dir>/runtime/homes/<project id>
};

class ProjectIdentities {
 public:
  ProjectIdentities(const berth::Services& services, UidRange range, std::string homes_dir)
      : services_(services), range_(range), homes_dir_(std::move(homes_dir)) {}

  // The project's uid (allocated on first use: the lowest free one of the range) and its
  // folder (made when missing). Throws berth::Error 503 when the range has no free uid left.
  ProjectIdentity of(const std::string& project_id);
  // The project is gone: its folder is removed and its uid freed.
  void remove(const std::string& project_id);
  // Removes the folders (and uids) of projects that `exists` says are gone: a berthd killed
  // between a project's deletion and its project.deleted hook left them. A folder in use since
  // this start is never judged. Returns the ids removed.
  std::vector<std::string> removeOrphans(const std::function<bool(const std::string&)>& exists);

  const std::string& homesDir() const { return homes_dir_; }

 private:
  unsigned allocate(const std::string& project_id);
  void makeHome(const std::string& home, const RunAs& ids) const;

  const berth::Services& services_;
  UidRange range_;
  std::string homes_dir_;
  std::mutex mutex_;
  std::map<std::string, unsigned> known_;  // project id -> uid (never changes while it exists)
};

}  // namespace berth::runtime
