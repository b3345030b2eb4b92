#include "gateway_app_spec.hpp"

#include "php_cgi.hpp"

namespace berth::runtime {

AppEnvironmentInput appEnvironmentFor(const Context& context, const std::string& project_id,
                                      const ReleaseRecord& release) {
  AppEnvironmentInput env;
  env.release_dir = context.releaseDir(project_id, release.id);
  nlohmann::json database =
      context.services->call("projects.directory.v1", "database", {{"id", project_id}});
  env.database_url = database.value("url", "");
  env.pg = pgEnvironment(env.database_url);
  nlohmann::json secrets = context.services->call("projects.directory.v1", "secrets",
                                                  {{"id", project_id}, {"scope", "runtime"}});
  if (secrets.contains("vars") && secrets["vars"].is_object())
    for (const auto& [name, value] : secrets["vars"].items())
      if (value.is_string()) env.secrets[name] = value.get<std::string>();
  env.start_env = release.start_env;
  if (release.kind == StartKind::Php)
    for (auto& setting : phpCgiEnvironment()) env.start_env.push_back(std::move(setting));
  return env;
}

AppSpec appSpecFor(const Context& context, const HostedProject& project,
                   const ReleaseRecord& release) {
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
  if (release.kind == StartKind::Php) {
    spec.argv = phpCgiArgv(release.argv, spec.home + "/tmp");
    spec.readiness_path.reset();  // a FastCGI port answers no HTTP: ready when it accepts
    if (spec.sandbox)
      for (auto& path : phpSandboxPaths()) spec.sandbox->system_paths.push_back(std::move(path));
  }
  return spec;
}

}  // namespace berth::runtime
