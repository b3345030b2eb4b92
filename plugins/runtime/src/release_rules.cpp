#include "release_rules.hpp"

#include <algorithm>

namespace berth::runtime {

std::optional<PromoteProblem> promoteProblem(const std::vector<ReleaseRow>& releases,
                                             const ReleaseRow& target) {
  const bool building = std::any_of(releases.begin(), releases.end(),
                                    [](const ReleaseRow& r) { return r.status == "building"; });
  if (building) return PromoteProblem{409, "a release is building; promote again when it is done"};
  if (target.status == "pruned")
    return PromoteProblem{
        410, "release " + target.id + " was pruned: its files are gone, so it cannot be made live"};
  if (target.status == "failed")
    return PromoteProblem{410,
                          "release " + target.id + " failed to build, so it cannot be made live"};
  return std::nullopt;
}

std::vector<std::string> releasesToPrune(const std::vector<ReleaseRow>& releases,
                                         std::size_t keep) {
  std::vector<const ReleaseRow*> with_files;
  for (const auto& r : releases)
    if (r.status == "live" || r.status == "ready") with_files.push_back(&r);
  // Newest first; ids break ties of the same second so the order is stable.
  std::sort(with_files.begin(), with_files.end(), [](const ReleaseRow* a, const ReleaseRow* b) {
    return a->created_at != b->created_at ? a->created_at > b->created_at : a->id > b->id;
  });
  std::vector<std::string> pruned;
  for (std::size_t i = keep; i < with_files.size(); ++i)
    if (with_files[i]->status == "ready") pruned.push_back(with_files[i]->id);
  return pruned;
}

}  // namespace berth::runtime
