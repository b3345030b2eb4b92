// How a PHP release runs: `php-cgi -b 127.0.0.1:$PORT`, a FastCGI server of its own per project
// under the runtime's supervisor (scale to zero, held wake, crash restart, its own user and
// sandbox, like every app), with the php.ini choices the platform makes for every PHP app.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace berth::runtime {

// The Release's start plan for index.php: what is recorded as its cmd, and its argv.
inline constexpr const char* kPhpCgiCommand = "php-cgi -b 127.0.0.1:$PORT";
std::vector<std::string> phpCgiCommand();
// Run once at build, as the app's user in the release: the sessions folder (hidden, so the
// edge never sends it) must exist before PHP writes to it.
std::vector<std::string> phpBuildStep();
inline constexpr const char* kPhpSessionsFolder = ".php-sessions";

// `release_argv` (php-cgi -b 127.0.0.1:$PORT) followed by the -d overrides of php.ini:
// no PATH_INFO guessing, errors never shown to visitors but written to stderr (the project's
// logs), no X-Powered-By, sessions in `sessions_dir` (the project's writable folder's tmp/:
// the release is read-only), collected by PHP itself.
std::vector<std::string> phpCgiArgv(const std::vector<std::string>& release_argv,
                                    const std::string& sessions_dir);

// php-cgi's own environment: PHP_FCGI_CHILDREN workers under one parent that restarts each
// after PHP_FCGI_MAX_REQUESTS requests, and only the loopback edge may connect.
std::vector<std::pair<std::string, std::string>> phpCgiEnvironment();

// The system folders PHP needs inside the sandbox besides the usual ones (php.ini, conf.d:
// without them no extension, pgsql included, is loaded).
std::vector<std::string> phpSandboxPaths();

}  // namespace berth::runtime
