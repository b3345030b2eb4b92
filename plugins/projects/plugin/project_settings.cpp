#include "project_settings.hpp"

#include <berth/services/projects_cmd_change.hpp>

#include <exception>

#include "regions.hpp"

namespace berth::projects {

ProjectRecord changeSettings(const Context& c, ProjectRecord project,
                             const SettingsChange& change) {
  // Everything is checked before anything changes.
  if (change.region) {
    if (!isRegion(*change.region))
      throw berth::Error::badRequest("unknown region " + *change.region);
    project.region = *change.region;
  }
  if (change.cmd) {
    // The rules are whoever runs the command's (the runtime plugin's), asked through
    // projects.cmd_change.v1; with nobody listening any command is stored, and the runtime
    // checks it again before it runs it.
    if (auto refusal =
            berth::projects_cmd_change::firstRefusal(*c.services, {project.id, *change.cmd}))
      throw berth::Error::badRequest(*refusal);
    project.cmd = *change.cmd;
  }
  if (change.cache_ttl) {
    if (*change.cache_ttl < 0 || *change.cache_ttl > 31536000)
      throw berth::Error::badRequest("cache_ttl must be between 0 and 31536000");
    project.cache_ttl = *change.cache_ttl;
  }
  if (change.ignore_dockerfile) project.ignore_dockerfile = *change.ignore_dockerfile;
  if (change.cache_enabled) project.cache_enabled = *change.cache_enabled;
  ListChange listed(c.lists, project.account_id);  // dropped as this returns
  c.db().exec(
      "UPDATE projects.projects SET region = $2, cmd = $3, ignore_dockerfile = $4, "
      "cache_enabled = $5, cache_ttl = $6 WHERE id = $1 AND status = 'ready'",
      project.id, project.region, project.cmd, project.ignore_dockerfile, project.cache_enabled,
      project.cache_ttl);
  // The runtime moves its edge cache rules at once (cache_enabled, cache_ttl).
  fireQuietly(c, "project.updated", project);
  return project;
}

nlohmann::json projectEventPayload(const ProjectRecord& p) {
  return {{"id", p.id}, {"name", p.name}, {"label", p.label}, {"account_id", p.account_id}};
}

void fireQuietly(const Context& c, const char* event, const ProjectRecord& project) {
  try {
    c.services->fire(event, projectEventPayload(project));
  } catch (const std::exception& e) {
    c.logger().withProject(project.name).warn(std::string(event) + ": " + e.what());
  }
}

}  // namespace berth::projects
