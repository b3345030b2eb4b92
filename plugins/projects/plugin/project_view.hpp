// The Project resource of api.md, filled from the record and from the plugins that own the
// other fields (storage: files; runtime: state and live release).
#pragma once
#include <nlohmann/json.hpp>

#include <vector>

#include "access.hpp"
#include "context.hpp"
#include "project_record.hpp"

namespace berth::projects {

struct ViewOptions {
  bool zero_files = false;  // PATCH answers files_count and files_bytes as 0
};

nlohmann::json projectView(const Context& context, const ProjectRecord& project,
                           const berth::Account* owner, ViewOptions options = {});

// The whole list in one go: one call per other plugin for every project, not one per project.
nlohmann::json projectViews(const Context& context, const std::vector<ProjectRecord>& projects,
                            const Access& access);

}  // namespace berth::projects
