// GET /projects/{name}/export?format=&gzip= (docs/openapi.yaml): the database written to a file
// under data_dir as it streams out of PostgreSQL (pg_dump for postgres/sql, our own writers for
// mysql and json), then sent by the edge (Responder::file, X-Accel-Redirect) with
// Content-Disposition: attachment. Anyone who reaches the project may export it.
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <optional>

#include "database_errors.hpp"
#include "export_file.hpp"
#include "export_files.hpp"
#include "export_json.hpp"
#include "export_mysql.hpp"
#include "export_postgres.hpp"
#include "project_access.hpp"
#include "routes.hpp"
#include "transfer_clock.hpp"

namespace berth::sqlconsole {
namespace {

enum class Format { Postgres, Mysql, Json };

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

Format formatOf(const berth::Request& request) {
  const std::string format = lowercase(request.queryParam("format").value_or(""));
  if (format.empty() || format == "postgres" || format == "postgresql" || format == "pg" ||
      format == "sql")
    return Format::Postgres;
  if (format == "mysql" || format == "mariadb") return Format::Mysql;
  if (format == "json") return Format::Json;
  throw berth::Error::badRequest("unknown format " + request.queryParam("format").value_or("") +
                                 "; use postgres (or sql), mysql or json");
}

bool gzipOf(const berth::Request& request) {
  const std::string gzip = lowercase(request.queryParam("gzip").value_or(""));
  if (gzip == "1" || gzip == "true" || gzip == "yes") return true;
  if (gzip.empty() || gzip == "0" || gzip == "false" || gzip == "no") return false;
  throw berth::Error::badRequest("gzip must be 1, true or yes (or 0, false or no)");
}

std::string stamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%d-%H%M%S", &tm);
  return text;
}

std::string extensionOf(Format format) {
  switch (format) {
    case Format::Mysql:
      return "-mysql.sql";
    case Format::Json:
      return ".json";
    default:
      return ".sql";
  }
}

std::string contentTypeOf(Format format, bool gzip) {
  if (gzip) return "application/gzip";
  return format == Format::Json ? "application/json" : "application/sql";
}

// pg_dump's last line, without its "pg_dump: error: " prefix.
std::string pgDumpReason(const std::string& what) {
  std::string line = what.substr(what.rfind('\n') == std::string::npos ? 0 : what.rfind('\n') + 1);
  for (const char* prefix : {"pg_dump: error: ", "pg_dump: "})
    if (line.rfind(prefix, 0) == 0) line.erase(0, std::string(prefix).size());
  return line;
}

// The table named in PostgreSQL's "query would be affected by row-level security policy for
// table "t"" (row_security is off for exports), or nothing for any other text.
std::optional<std::string> policyTable(const std::string& text) {
  const std::string marker = "row-level security policy for table \"";
  const size_t at = text.find(marker);
  if (at == std::string::npos) return std::nullopt;
  const size_t start = at + marker.size();
  const size_t end = text.find('"', start);
  if (end == std::string::npos) return std::nullopt;
  return text.substr(start, end - start);
}

berth::Error policyRefusal(const std::string& table) {
  return berth::Error::badRequest(
      "table " + table +
      " forces row-level security on its owner (FORCE ROW LEVEL SECURITY); an export reads "
      "every row with row_security off and runs no policy, so it cannot read that table: "
      "turn FORCE off (ALTER TABLE ... NO FORCE ROW LEVEL SECURITY) to export it");
}

// A name for pg_dump's session that no other session has (application_name).
std::string dumpSessionName() {
  static std::atomic<uint64_t> next{0};
  return "berth-export-" + std::to_string(::getpid()) + "-" + std::to_string(++next);
}

void writeExport(Context& context, const Project& project, Format format, bool gzip,
                 const std::string& path, TransferClock& clock) {
  if (format == Format::Postgres) {
    PgDumpJob job;
    job.outputPath = path;
    job.gzip = gzip;
    job.applicationName = dumpSessionName();
    job.stop = &clock.expiredFlag();
    {
      auto lease = context.connections->lease(project.id);
      job.serverVersion = PQserverVersion(lease->raw());
    }
    job.url = berth::ProjectsDirectory(*context.services).database(project.id).url;
    try {
      dumpPostgres(job);
    } catch (const std::exception& e) {
      if (clock.expired()) {
        // pg_dump was killed; its session may still wait (a lock) or run: end it.
        try {
          auto lease = context.connections->lease(project.id);
          lease->exec(
              "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
              "WHERE application_name = $1 AND usename = current_user",
              {job.applicationName});
        } catch (const std::exception&) {
          // the project's database is gone or unreachable: so is pg_dump's session
        }
        throw berth::Error::badRequest(ranTooLong("export", clock.limit()));
      }
      if (std::optional<std::string> table = policyTable(e.what())) throw policyRefusal(*table);
      throw;
    }
    ::chmod(path.c_str(), 0644);  // pg_dump made it with the umask; the edge must read it
    return;
  }
  auto lease = context.connections->lease(project.id);
  ExportFile file(path, gzip);
  try {
    CancelOnExpiry watching(clock, lease->raw());
    if (format == Format::Mysql) {
      writeMysqlExport(*lease, file, "the Berth project " + project.name);
    } else {
      writeJsonExport(*lease, file);
    }
  } catch (const PgError& e) {
    if (clock.expired() && !e.isConnectionProblem()) {
      lease.discard();  // a cancel request may still be on its way to it
      throw berth::Error::badRequest(ranTooLong("export", clock.limit()));
    }
    if (std::optional<std::string> table = policyTable(e.what())) throw policyRefusal(*table);
    throw databaseError(e, lease);
  }
  if (clock.expired()) lease.discard();  // a cancel request may be on its way to it
  file.close();
}

void exportDatabase(Context& context, const berth::Request& request, berth::Responder& responder) {
  const Project project = reachableProject(context, request);
  const Format format = formatOf(request);
  const bool gzip = gzipOf(request);
  const std::string filename =
      project.name + "-" + stamp() + extensionOf(format) + (gzip ? ".gz" : "");
  const std::string path =
      newExportPath(context.settings.data_dir, extensionOf(format) + (gzip ? ".gz" : ""));
  const berth::Logger log = context.logger().withProject(project.name);
  const std::string request_id = request.id();
  const auto started = std::chrono::steady_clock::now();
  TransferClock clock(context.settings.transfer_timeout);
  try {
    writeExport(context, project, format, gzip, path, clock);
  } catch (const berth::Error& e) {
    std::filesystem::remove(path);
    log.write(berth::LogLevel::Info, request_id, "export refused: " + e.message());
    throw;
  } catch (const std::exception& e) {
    std::filesystem::remove(path);
    log.write(berth::LogLevel::Error, request_id, std::string("export failed: ") + e.what());
    const std::string reason = format == Format::Postgres ? pgDumpReason(e.what()) : "";
    throw berth::Error(500, "the export failed" + (reason.empty() ? "" : ": " + reason));
  }
  std::error_code error;
  const auto bytes = std::filesystem::file_size(path, error);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - started)
                      .count();
  log.write(berth::LogLevel::Info, request_id,
            "export " + filename + ": " + std::to_string(error ? 0 : bytes) + " bytes in " +
                std::to_string(ms) + " ms");
  responder.file(path, contentTypeOf(format, gzip),
                 {{"Content-Disposition", "attachment; filename=" + filename}});
}

}  // namespace

void registerExportRoute(berth::Registrar& r, Context& context) {
  r.get("/projects/:name/export", [&context](berth::Request req, berth::Responder resp) {
    answerLater(*context.transfers, context.logger(), std::move(req), std::move(resp),
                [&context](const berth::Request& request, berth::Responder& responder) {
                  exportDatabase(context, request, responder);
                });
  });
  // Export files are needed only until the edge has opened them (see export_files.hpp).
  r.job(
      "export_cleanup", std::chrono::minutes(1),
      [&context](berth::JobContext&) {
        const size_t removed =
            sweepExports(context.settings.data_dir,
                         std::chrono::duration_cast<std::chrono::seconds>(kExportKeep));
        if (removed > 0)
          context.logger().info("export_cleanup: removed " + std::to_string(removed) +
                                " export files");
      },
      /*runOnStart=*/true);
}

}  // namespace berth::sqlconsole
