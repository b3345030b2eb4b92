#include "project_lists.hpp"

#include <algorithm>
#include <map>

namespace berth::projects {

std::vector<ProjectRecord> ProjectLists::readyProjectsOf(
    const berth::Db& db, const std::vector<std::string>& account_ids) {
  auto lists = kept_.getMany(account_ids, [&](const std::vector<std::string>& missing) {
    std::map<std::string, std::vector<ProjectRecord>> read;
    for (auto& project : projects::readyProjectsOf(db, missing))
      read[project.account_id].push_back(std::move(project));
    return read;
  });
  std::vector<ProjectRecord> out;
  for (auto& [account, projects] : lists)
    out.insert(out.end(), std::make_move_iterator(projects.begin()),
               std::make_move_iterator(projects.end()));
  std::sort(out.begin(), out.end(),
            [](const ProjectRecord& a, const ProjectRecord& b) { return a.name < b.name; });
  return out;
}

}  // namespace berth::projects
