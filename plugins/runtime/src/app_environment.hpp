// The environment an app process gets: nothing of berthd's own (its secrets must not leak),
// only what the platform sets. Later sources never override the platform's own names.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace berth::runtime {

struct AppEnvironmentInput {
  std::string release_dir;
  std::string home;  // the project's writable folder (HOME; TMPDIR is its tmp/); empty: release
  unsigned port = 0;
  std::string database_url;                    // DATABASE_URL; may be empty
  std::map<std::string, std::string> pg;       // PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE
  std::map<std::string, std::string> secrets;  // runtime-scoped secrets of the project
  // The project's start options' environment (runtime.apps.v1): set after the secrets, so a
  // secret of the same name does not override it.
  std::map<std::string, std::string> options;
  std::vector<std::pair<std::string, std::string>> start_env;  // from package.json's start script
  std::string public_url;  // BERTH_URL: where people reach the project; may be empty

  // Equal inputs make equal environments: a change that leaves it equal needs no restart.
  bool operator==(const AppEnvironmentInput&) const = default;
};

// PORT, HOME (the project's writable folder), TMPDIR (<home>/tmp), PATH (with the release's
// node_modules/.bin first), LANG, DATABASE_URL, PG*, BERTH_URL, then secrets, the start
// options' environment and the start script's assignments where they do not clash: PORT, HOME,
// TMPDIR, PATH, DATABASE_URL, PG* and BERTH_URL always keep the platform's values.
std::map<std::string, std::string> appEnvironment(const AppEnvironmentInput& input);

// The names only the platform sets (PORT, HOME, TMPDIR, PATH, DATABASE_URL, PG*, BERTH_URL):
// appEnvironment never lets another source override them.
bool isPlatformName(const std::string& name);

// PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE (and PGHOSTADDR, PGSSLMODE from its query)
// of a postgresql:// URL as the projects plugin writes it (percent-encoded parts, an IPv6 host
// in brackets, a socket folder as an encoded path). Empty for a URL of another form.
std::map<std::string, std::string> pgEnvironment(const std::string& database_url);

// "$PORT" and "${PORT}" in each argument replaced from `env` (commands run without a shell,
// so "--port $PORT" would otherwise reach the app as written). Unknown names stay as written.
std::vector<std::string> expandArguments(const std::vector<std::string>& argv,
                                         const std::map<std::string, std::string>& env);

}  // namespace berth::runtime
