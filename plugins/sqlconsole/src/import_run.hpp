// Running an import script (docs/openapi.yaml, POST /projects/{name}/import) on a project's
// database: read item by item from the file the edge spooled the body to (ScriptReader: never
// whole in memory), every statement in one transaction, COPY ... FROM stdin data passed on with
// PQputCopyData, the lines of rule 2 left out. Anything that goes wrong rolls the whole script
// back.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "pg_session.hpp"

namespace berth::sqlconsole {

struct ImportOptions {
  uint64_t maxBytes = uint64_t{256} << 20;
  // statement_timeout for each statement of the script (SET LOCAL in the import's transaction);
  // the worker's own clock cancels a statement this long plus a grace period, whatever the
  // script set. 0: no limit.
  std::chrono::milliseconds statementTimeout{std::chrono::minutes(10)};
  // When the whole import must be over (sqlconsole.transfer_timeout_seconds): the statement in
  // flight is cancelled then, and no statement starts after it; the import is refused (400,
  // "... ran longer than ...") and rolled back. max(): no limit.
  std::chrono::steady_clock::time_point stopAt = std::chrono::steady_clock::time_point::max();
  // How often progress is reported while the import runs.
  std::chrono::milliseconds progressEvery{std::chrono::seconds(10)};
};

struct ImportProgress {
  size_t ran = 0;          // statements sent to the database
  size_t skipped = 0;      // lines and statements left out
  uint64_t bytesRead = 0;  // how far into the file the import is
  uint64_t fileSize = 0;
};

// Why an import was refused or undone. what() is the sentence for the caller: the file's
// problem (empty, binary, SQLite, not UTF-8, too large), or for a statement "statement N (line
// L): <the database's message>; R statements ran before it and none are kept".
class ImportFailed : public std::runtime_error {
 public:
  ImportFailed(int status, std::string message, bool connection_lost = false)
      : std::runtime_error(std::move(message)), status_(status), lost_(connection_lost) {}
  int status() const { return status_; }  // 400, 413, or 503
  bool connectionLost() const { return lost_; }

 private:
  int status_;
  bool lost_;
};

// Runs the script at path on session and commits it; throws ImportFailed (after rolling back)
// otherwise. progress is called about every options.progressEvery while it runs. The session is
// left idle, outside any transaction, unless the connection was lost.
ImportProgress runImport(PgSession& session, const std::string& path, const ImportOptions& options,
                         const std::function<void(const ImportProgress&)>& progress = {});

}  // namespace berth::sqlconsole
