#include "gateway_app_spec.hpp"

#include <berth/services/projects_directory.hpp>

#include "php_cgi.hpp"
#include "shared_folder.hpp"
#include "start_options.hpp"

namespace berth::runtime {

AppEnvironmentInput appEnvironmentFor(const Context& context, const std::string& project_id,
                                      const ReleaseRecord& release) {
  AppEnvironmentInput env;
  env.release_dir = context.releaseDir(project_id, release.id);
  const berth::ProjectsDirectory directory(*context.services);
  env.database_url = directory.database(project_id).url;
  env.pg = pgEnvironment(env.database_url);
  for (auto& [name, value] :
       directory.secrets(project_id, berth::projects_directory::kRuntimeScope))
    env.secrets[name] = std::move(value);
  env.options = readStartOptions(*context.services, project_id).environment;
  env.start_env = release.start_env;
  env.public_url = directory.publicUrl(project_id);
  if (release.kind == StartKind::Php)
    for (auto& setting : phpCgiEnvironment()) env.start_env.push_back(std::move(setting));
  return env;
}

AppSpec appSpecFor(const Context& context, const Project& project, const ReleaseRecord& release) {
  // Refused (503) rather than run unprotected.
  if (context.config.sandbox_refusal)
    throw berth::Error::unavailable(*context.config.sandbox_refusal);
  const ProjectIdentity identity = context.identities->of(project.id);
  AppSpec spec;
  spec.project = project.name;
  spec.argv = release.argv;
  spec.release_dir = context.releaseDir(project.id, release.id);
  spec.home = identity.home;
  spec.environment = appEnvironmentFor(context, project.id, release);
  spec.run_as = identity.ids;
  spec.sandbox = context.config.sandbox;
  spec.warn_unsandboxed = context.config.unsafe_without_sandbox;
  spec.readiness_path = context.config.readiness_path;
  spec.start_timeout = context.config.start_timeout;
  spec.stop_grace = context.config.stop_grace;
  // The project's start options (runtime.apps.v1) win over the configuration.
  const StartOptions options = readStartOptions(*context.services, project.id);
  if (options.readiness_path) spec.readiness_path = options.readiness_path;
  if (options.start_timeout_seconds)
    spec.start_timeout = std::chrono::seconds(*options.start_timeout_seconds);
  for (const auto& path : options.read_only_paths) {
    // Checked when set; again now, as the folder may have gone (or been replaced) since.
    if (!sharedFolderOk(path, context.config.shared_dir))
      throw berth::Error::unavailable("the start options' read-only path " + path +
                                      " is no longer a folder under " + context.config.shared_dir);
    spec.read_only_paths.push_back(path);
  }
  if (release.kind == StartKind::Php) {
    spec.argv = phpCgiArgv(release.argv, spec.home + "/tmp");
    spec.readiness_path.reset();  // a FastCGI port answers no HTTP: ready when it accepts
    if (spec.sandbox)
      for (auto& path : phpSandboxPaths()) spec.sandbox->system_paths.push_back(std::move(path));
  }
  return spec;
}

}  // namespace berth::runtime
