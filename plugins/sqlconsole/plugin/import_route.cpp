// POST /projects/{name}/import (docs/openapi.yaml): a raw SQL script of up to 256 MB, spooled to a
// file by the edge (which answers 413 above that), read from there in chunks and run in one
// transaction (import_run.hpp). Only the account owner or a team admin may import.
#include <chrono>

#include "database_errors.hpp"
#include "import_run.hpp"
#include "project_access.hpp"
#include "routes.hpp"
#include "structure_queries.hpp"
#include "transfer_clock.hpp"

namespace berth::sqlconsole {
namespace {

constexpr uint64_t kImportLimit = uint64_t{256} << 20;  // docs/openapi.yaml: up to 256 MB

std::string megabytes(uint64_t bytes) {
  return std::to_string(bytes / (1 << 20)) + "." + std::to_string((bytes % (1 << 20)) * 10 >> 20) +
         " MB";
}

void importScript(Context& context, const berth::Request& request, berth::Responder& responder) {
  const Project project = reachableProject(context, request);
  if (!canManage(context, request, project)) {
    throw berth::Error::forbidden(
        "only the owner or an admin of this project's account can import into its database");
  }
  const std::optional<std::string> file = request.bodyFile();
  if (!file || file->empty()) throw berth::Error::badRequest("the file is empty");

  const berth::Logger log = context.logger().withProject(project.name);
  const std::string request_id = request.id();
  ImportOptions options;
  options.maxBytes = static_cast<uint64_t>(context.settings.import_max_bytes);
  const auto started = std::chrono::steady_clock::now();
  auto lease = context.connections->lease(project.id);
  lease.dirty();
  ForgetCatalogsAfter schema_may_change(context.catalogs, project.id);
  ImportProgress done;
  TransferClock clock(context.settings.transfer_timeout);
  options.stopAt = clock.deadline();
  try {
    CancelOnExpiry watching(clock, lease->raw());  // a statement, or COPY data, in flight
    done = runImport(*lease, *file, options, [&](const ImportProgress& p) {
      log.write(berth::LogLevel::Info, request_id,
                "import running: " + std::to_string(p.ran) + " statements ran, " +
                    megabytes(p.bytesRead) + " of " + megabytes(p.fileSize) + " read");
    });
  } catch (const ImportFailed& e) {
    if (e.connectionLost() || clock.expired()) lease.discard();
    if (clock.expired() && !e.connectionLost()) {
      const std::string message = ranTooLong("import", clock.limit()) + "; nothing was kept";
      log.write(berth::LogLevel::Info, request_id, "import refused: " + message);
      throw berth::Error::badRequest(message);
    }
    log.write(berth::LogLevel::Info, request_id, std::string("import refused: ") + e.what());
    throw berth::Error(e.status(), e.what());
  }
  if (clock.expired()) lease.discard();  // a cancel request may be on its way to it
  size_t tables = 0;
  try {
    tables = publicTableNames(*lease).size();
  } catch (const PgError& e) {
    throw databaseError(e, lease);
  }
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - started)
                      .count();
  log.write(berth::LogLevel::Info, request_id,
            "import done: " + std::to_string(done.ran) + " statements ran, " +
                std::to_string(done.skipped) + " skipped, " + megabytes(done.fileSize) + " in " +
                std::to_string(ms) + " ms");
  responder.json(200, {{"imported", "statements"},
                       {"ran", done.ran},
                       {"skipped", done.skipped},
                       {"tables", tables}});
}

}  // namespace

void registerImportRoute(berth::Registrar& r, Context& context) {
  berth::RouteOptions options;
  options.rawBody = true;
  options.maxBodyBytes = kImportLimit;
  r.post(
      "/projects/:name/import",
      [&context](berth::Request req, berth::Responder resp) {
        answerLater(*context.transfers, context.logger(), std::move(req), std::move(resp),
                    [&context](const berth::Request& request, berth::Responder& responder) {
                      importScript(context, request, responder);
                    });
      },
      options);
}

}  // namespace berth::sqlconsole
