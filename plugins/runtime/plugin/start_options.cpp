#include "start_options.hpp"

#include "app_environment.hpp"
#include "shared_folder.hpp"

namespace berth::runtime {

StartOptions readStartOptions(const berth::Services& services, const std::string& project_id) {
  StartOptions options;
  options.project_id = project_id;
  auto r = services.db().exec(
      "SELECT readiness_path, start_timeout_seconds, read_only_paths, environment "
      "FROM runtime.start_options WHERE project_id = $1",
      project_id);
  if (r.rows() == 0) return options;
  options.readiness_path = r.get<std::optional<std::string>>(0, 0);
  options.start_timeout_seconds = r.get<std::optional<std::int64_t>>(0, 1);
  nlohmann::json paths = r.get<nlohmann::json>(0, 2);
  for (const auto& path : paths)
    if (path.is_string()) options.read_only_paths.push_back(path.get<std::string>());
  nlohmann::json environment = r.get<nlohmann::json>(0, 3);
  for (const auto& [name, value] : environment.items())
    if (value.is_string()) options.environment[name] = value.get<std::string>();
  return options;
}

void writeStartOptions(const berth::Services& services, const StartOptions& options) {
  nlohmann::json paths = options.read_only_paths;
  nlohmann::json environment = nlohmann::json::object();
  for (const auto& [name, value] : options.environment) environment[name] = value;
  services.db().exec(
      "INSERT INTO runtime.start_options (project_id, readiness_path, start_timeout_seconds, "
      "read_only_paths, environment) VALUES ($1, $2, $3::int, $4::jsonb, $5::jsonb) "
      "ON CONFLICT (project_id) DO UPDATE SET readiness_path = EXCLUDED.readiness_path, "
      "start_timeout_seconds = EXCLUDED.start_timeout_seconds, "
      "read_only_paths = EXCLUDED.read_only_paths, environment = EXCLUDED.environment, "
      "updated_at = extract(epoch FROM now())::bigint",
      options.project_id, options.readiness_path, options.start_timeout_seconds, paths,
      environment);
}

void removeStartOptions(const berth::Services& services, const std::string& project_id) {
  services.db().exec("DELETE FROM runtime.start_options WHERE project_id = $1", project_id);
}

void checkStartOptions(const StartOptions& options, const std::string& shared_dir) {
  for (const auto& path : options.read_only_paths)
    if (!sharedFolderOk(path, shared_dir))
      throw berth::Error::badRequest("a read-only path must be a folder under " + shared_dir +
                                     ": " + path);
  // The names appEnvironment keeps for the platform: the same rule, refused here rather than
  // silently dropped at start.
  for (const auto& [name, value] : options.environment)
    if (isPlatformName(name))
      throw berth::Error::badRequest("environment " + name +
                                     " is set by the platform; start options cannot set it");
}

}  // namespace berth::runtime
