#include "export_postgres.hpp"

#include <libpq-fe.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <vector>

#include "child_run.hpp"

namespace berth::sqlconsole {
namespace {

namespace fs = std::filesystem;

struct ConninfoFree {
  void operator()(PQconninfoOption* options) const noexcept { PQconninfoFree(options); }
};

// libpq's quoting for a conninfo value: single quotes, backslash before ' and \.
std::string quoted(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

bool executable(const fs::path& path) {
  return ::access(path.c_str(), X_OK) == 0;
}

std::string lastLines(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.size() > 2000) text = "..." + text.substr(text.size() - 2000);
  return text;
}

}  // namespace

std::string findPgDump(int server_version) {
  const int major = server_version >= 100000 ? server_version / 10000 : server_version / 100;
  const fs::path root = "/usr/lib/postgresql";
  const fs::path exact = root / std::to_string(major) / "bin" / "pg_dump";
  if (executable(exact)) return exact.string();
  int best = 0;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(root, error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const int version = std::stoi(name);
    if (version >= major && version > best && executable(entry.path() / "bin" / "pg_dump"))
      best = version;
  }
  if (best > 0) return (root / std::to_string(best) / "bin" / "pg_dump").string();
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/usr/local/pgsql/bin"}) {
    const fs::path candidate = fs::path(dir) / "pg_dump";
    if (executable(candidate)) return candidate.string();
  }
  return {};
}

void dumpPostgres(const PgDumpJob& job) {
  const std::string program = findPgDump(job.serverVersion);
  if (program.empty()) throw std::runtime_error("pg_dump is not installed on this server");

  char* parse_error = nullptr;
  std::unique_ptr<PQconninfoOption, ConninfoFree> options(
      PQconninfoParse(job.url.c_str(), &parse_error));
  if (!options) {
    std::string why = parse_error != nullptr ? parse_error : "out of memory";
    PQfreemem(parse_error);
    throw std::runtime_error("the project's database URL does not parse: " + why);
  }
  std::string conninfo;
  std::string password;
  for (const PQconninfoOption* option = options.get(); option->keyword != nullptr; ++option) {
    if (option->val == nullptr || *option->val == '\0') continue;
    const std::string keyword = option->keyword;
    if (keyword == "password") {
      password = option->val;
      continue;
    }
    if (!conninfo.empty()) conninfo.push_back(' ');
    conninfo += keyword + "=" + quoted(option->val);
  }

  std::vector<std::string> argv = {
      program,
      "--format=plain",
      "--no-owner",       // loads into a database of any owner
      "--no-privileges",  // GRANTs name this platform's roles
      "--no-tablespaces",
      "--no-security-labels",
      "--no-subscriptions",
      "--no-publications",
      "--no-toast-compression",
      "--no-table-access-method",
      "--lock-wait-timeout=60s",  // never wait forever behind a lock someone holds
      "--file=" + job.outputPath,
  };
  if (job.gzip) argv.push_back("--compress=6");  // plain format: the whole file is gzip
  argv.push_back("--dbname=" + conninfo);

  std::vector<std::string> env = {"PATH=/usr/bin:/bin", "LC_ALL=C", "PGCONNECT_TIMEOUT=10",
                                  "PGAPPNAME=" + job.applicationName};
  if (!password.empty()) env.push_back("PGPASSWORD=" + password);

  const ChildResult result = runChild(argv, env, job.stop);
  if (result.exitCode != 0) {
    throw std::runtime_error(
        "pg_dump failed (" +
        (result.exitCode < 0 ? std::string("killed") : "exit " + std::to_string(result.exitCode)) +
        "): " + lastLines(result.errors));
  }
}

}  // namespace berth::sqlconsole
