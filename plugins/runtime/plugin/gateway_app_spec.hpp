// What a process release of a project is started with: its argv and release folder from the
// release, the environment (DATABASE_URL and PG* of the project's database, its runtime
// secrets, its start options' environment, the start script's assignments), and the run_as,
// sandbox, readiness and time limits of the runtime's configuration, with the project's start
// options (runtime.apps.v1: readiness path, start timeout, read-only folders) over them. A PHP
// release runs php-cgi with the platform's php.ini overrides and environment (php_cgi.hpp), ready
// when its FastCGI port accepts connections.
#pragma once
#include "context.hpp"
#include "project_routing.hpp"

namespace berth::runtime {

// Asks projects.directory.v1 for the database (`database`) and the runtime secrets
// (`secrets`, scope runtime); reads the start options. @throw berth::Error when the directory
// fails.
AppEnvironmentInput appEnvironmentFor(const Context& context, const std::string& project_id,
                                      const ReleaseRecord& release);

AppSpec appSpecFor(const Context& context, const Project& project, const ReleaseRecord& release);

}  // namespace berth::runtime
