// The Project schema of docs/openapi.yaml, filled from the record and from whichever plugins
// answer the projects.view.v1 hook (<berth/services/projects_view.hpp>: files_count,
// files_bytes, state, live, runtime; their defaults when none does). Written straight as
// JSON text: GET /projects renders every project of the caller on every call, and building a
// DOM to dump it was most of the route's time.
#pragma once
#include <string>
#include <vector>

#include "access.hpp"
#include "context.hpp"
#include "project_record.hpp"

namespace berth::projects {

struct ViewOptions {
  bool zero_files = false;  // PATCH answers files_count and files_bytes as 0
};

// One project as a JSON object.
std::string projectViewJson(const Context& context, const ProjectRecord& project,
                            const berth::Account* owner, ViewOptions options = {});

// {"projects": [...]}: one projects.view.v1 event for every project, not one per project.
std::string projectListJson(const Context& context, const std::vector<ProjectRecord>& projects,
                            const Access& access);

}  // namespace berth::projects
