#include "import_run.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include <berth/common/utf8.hpp>
#include "pg_wait.hpp"
#include "sql_script_reader.hpp"

namespace berth::sqlconsole {
namespace {

constexpr std::chrono::seconds kWatchdogGrace{10};
// Statements are sent in pipelines (libpq pipeline mode): up to this many, or this much SQL, go
// out before their results are read, so the server works while the next ones are parsed and no
// round trip is waited for per statement. The byte bound keeps a pipeline within the sockets'
// buffers: however large the results of one statement, sending the rest never blocks for good.
constexpr size_t kPipelineStatements = 1000;
constexpr size_t kPipelineBytes = 64 * 1024;

// Where a statement sent in a pipeline was in the script.
struct Sent {
  size_t statement;
  size_t line;
};

std::string statementsRan(size_t ran) {
  return std::to_string(ran) + (ran == 1 ? " statement" : " statements");
}

std::string where(size_t statement, size_t line) {
  return "statement " + std::to_string(statement) + " (line " + std::to_string(line) + "): ";
}

// A database message quotes the value it refused whole: a 6 MB line of COPY data would make a
// 6 MB answer (and log line). Longer ones are cut, on a UTF-8 character boundary.
constexpr size_t kMaxMessageBytes = 500;

std::string shortened(std::string text) {
  if (text.size() <= kMaxMessageBytes) return text;
  text.resize(common::utf8CutPoint(text, kMaxMessageBytes));
  return text + "...";
}

// The database's message, with the line of COPY data it was about when there is one. A
// statement stopped for taking too long says so in docs/openapi.yaml's words.
std::string messageOf(PGconn* conn, const PGresult* result, bool copy) {
  const PgError error = errorOf(conn, result);
  if (error.isQueryCanceled()) return "that query took too long and was stopped";
  std::string message = shortened(error.what());
  if (copy) {
    const char* context = PQresultErrorField(result, PG_DIAG_CONTEXT);
    if (context != nullptr && *context != '\0') message += " (" + shortened(context) + ")";
  }
  return message;
}

class Importer {
 public:
  Importer(PgSession& session, const ImportOptions& options,
           const std::function<void(const ImportProgress&)>& progress)
      : conn_(session.raw()), options_(options), progress_(progress) {}

  ImportProgress run(ScriptReader& reader) {
    state_.fileSize = reader.fileSize();
    nextReport_ = Clock::now() + options_.progressEvery;
    command("BEGIN");
    // The script's own SET lines are left out (rule 2), so the settings a pg_dump script relies
    // on come from here: function bodies are not checked against tables that come later in
    // the script, and the text is UTF-8 (ScriptFile checked it).
    command("SET LOCAL statement_timeout = " + std::to_string(options_.statementTimeout.count()) +
            "; SET LOCAL check_function_bodies = false; SET LOCAL client_encoding = 'UTF8'");
    for (;;) {
      std::optional<ScriptItem> item;
      try {
        item = reader.next();
      } catch (const ScriptError& e) {
        flush();  // a statement sent before it may have been refused first
        fail(400, shortened(e.what()) + "; " + statementsRan(state_.ran) +
                      " ran before it and none are kept");
      }
      if (!item) break;
      state_.bytesRead = item->offset;
      if (item->type == ScriptItem::Type::Statement) checkTime();
      handle(*item);
      report();
    }
    // The reader refuses a file that ends inside COPY data itself; this only keeps the answer
    // in the usual shape should it ever not.
    if (inCopy_) failStatement("COPY ... FROM stdin: its data does not end with a line \\.");
    flush();
    leavePipeline();
    commit();
    state_.bytesRead = state_.fileSize;
    return state_;
  }

 private:
  void handle(const ScriptItem& item) {
    switch (item.type) {
      case ScriptItem::Type::Skipped:
        ++state_.skipped;
        return;
      case ScriptItem::Type::Statement:
        runStatement(item);
        return;
      case ScriptItem::Type::CopyData:
        if (PQputCopyData(conn_, item.text.data(), static_cast<int>(item.text.size())) != 1) lost();
        return;
      case ScriptItem::Type::CopyEnd:
        endCopy();
        return;
    }
  }

  void runStatement(const ScriptItem& item) {
    // COPY talks to the client, which a pipeline cannot do: it runs on its own.
    if (item.kind.copyFromStdin || item.kind.copyToStdout) {
      flush();
      leavePipeline();
      runAlone(item);
      return;
    }
    if (!pipeline_) {
      if (PQenterPipelineMode(conn_) != 1) lost();
      pipeline_ = true;
    }
    if (PQsendQueryParams(conn_, item.text.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0) != 1)
      lost();
    sent_.push_back({item.statement, item.line});
    sentBytes_ += item.text.size();
    if (sent_.size() >= kPipelineStatements || sentBytes_ >= kPipelineBytes) flush();
  }

  // Ends the pipeline in flight and reads its results in order: the first refusal names its
  // statement, and those before it in the pipeline count as ran.
  void flush() {
    if (sent_.empty()) return;
    if (PQpipelineSync(conn_) != 1) lost();
    deadline_ = statementDeadline();
    std::optional<std::pair<size_t, std::string>> refusal;  // index in sent_, message
    for (size_t i = 0; i < sent_.size(); ++i) {
      PQsetSingleRowMode(conn_);  // rows a statement returns are read and dropped one by one
      while (PgResult result = next()) {
        if (failed(result.get()) && !refusal)
          refusal.emplace(i, messageOf(conn_, result.get(), false));
      }
    }
    for (;;) {  // then the end of the pipeline
      PgResult result = next();
      if (!result) lost();
      if (PQresultStatus(result.get()) == PGRES_PIPELINE_SYNC) break;
    }
    const std::vector<Sent> sent = std::move(sent_);
    sent_.clear();
    sentBytes_ = 0;
    if (refusal) {
      state_.ran += refusal->first;
      const Sent& at = sent[refusal->first];
      failAt(at.statement, at.line, refusal->second);
    }
    state_.ran += sent.size();
    if (PQtransactionStatus(conn_) != PQTRANS_INTRANS) {
      const Sent& last = sent.back();
      failAt(last.statement, last.line,
             "the import's transaction ended by this statement or one shortly before it, which "
             "the script may not do");
    }
  }

  void leavePipeline() {
    if (pipeline_ && PQexitPipelineMode(conn_) != 1) lost();
    pipeline_ = false;
  }

  Deadline statementDeadline() const {
    Deadline deadline = Deadline::after(options_.statementTimeout.count() > 0
                                            ? options_.statementTimeout + kWatchdogGrace
                                            : std::chrono::milliseconds(0));
    deadline.cancelAt = std::min(deadline.cancelAt, options_.stopAt);
    return deadline;
  }

  void checkTime() {
    if (Clock::now() < options_.stopAt) return;
    flush();  // a refusal already in flight is the answer, else the clock is
    fail(400, "the import ran out of time; " + statementsRan(state_.ran) +
                  " ran before it stopped and none are kept");
  }

  void runAlone(const ScriptItem& item) {
    current_ = {item.statement, item.line};
    if (PQsendQuery(conn_, item.text.c_str()) == 0) lost();
    deadline_ = statementDeadline();
    if (item.kind.copyFromStdin) {
      PgResult first = next();
      if (!first) lost();
      if (PQresultStatus(first.get()) == PGRES_COPY_IN) {
        inCopy_ = true;  // the data items follow; endCopy finishes the statement
        return;
      }
      refuse(first.get(), false);  // the COPY itself was refused (no such table, ...)
    }
    std::optional<std::string> refusal;
    while (PgResult result = next()) {
      const ExecStatusType status = PQresultStatus(result.get());
      if (failed(result.get())) {
        if (!refusal) refusal = messageOf(conn_, result.get(), false);
      } else if (status == PGRES_COPY_IN) {
        PQputCopyEnd(conn_, "an import statement asked for COPY data it does not have");
      } else if (status == PGRES_COPY_OUT) {
        char* buffer = nullptr;
        while (PQgetCopyData(conn_, &buffer, 0) > 0) PQfreemem(buffer);
      }
    }
    if (refusal) failStatement(*refusal);
    finishStatement();
  }

  void endCopy() {
    inCopy_ = false;
    if (PQputCopyEnd(conn_, nullptr) != 1) lost();
    std::optional<std::string> refusal;
    while (PgResult result = next()) {
      if (failed(result.get()) && !refusal) refusal = messageOf(conn_, result.get(), true);
    }
    if (refusal) failStatement(*refusal);
    finishStatement();
  }

  void finishStatement() {
    // A statement that ended the transaction (COMMIT PREPARED and the like) would leave the
    // rest of the script outside it; stop before it runs.
    if (PQtransactionStatus(conn_) != PQTRANS_INTRANS) {
      failStatement("it ended the import's transaction, which the script may not do");
    }
    ++state_.ran;
  }

  PgResult next() {
    try {
      return nextResult(conn_, deadline_);
    } catch (const PgError& e) {
      lost();
    }
  }

  void command(const std::string& sql) {
    Deadline deadline = Deadline::after(std::chrono::seconds(60));
    if (PQsendQuery(conn_, sql.c_str()) == 0) lost();
    try {
      finishCommand(conn_, deadline);
    } catch (const PgError& e) {
      if (e.isConnectionProblem()) lost();
      fail(400, std::string("the import could not start: ") + e.what());
    }
  }

  void commit() {
    Deadline deadline = Deadline::after(options_.statementTimeout + kWatchdogGrace);
    if (PQsendQuery(conn_, "COMMIT") == 0) lost();
    std::optional<std::string> refusal;
    while (PgResult result = [&] {
      try {
        return nextResult(conn_, deadline);
      } catch (const PgError&) {
        lost();
      }
    }()) {
      if (failed(result.get()) && !refusal) refusal = messageOf(conn_, result.get(), false);
    }
    // A deferred constraint can refuse at COMMIT, which then rolls back.
    if (refusal)
      fail(400, "the import could not be committed: " + *refusal + "; " +
                    statementsRan(state_.ran) + " ran and none are kept");
  }

  void report() {
    if (!progress_ || Clock::now() < nextReport_) return;
    progress_(state_);
    nextReport_ = Clock::now() + options_.progressEvery;
  }

  void refuse(const PGresult* result, bool copy) { failStatement(messageOf(conn_, result, copy)); }

  [[noreturn]] void failStatement(const std::string& message) {
    failAt(current_.statement, current_.line, message);
  }

  [[noreturn]] void failAt(size_t statement, size_t line, const std::string& message) {
    fail(400, where(statement, line) + message + "; " + statementsRan(state_.ran) +
                  " ran before it and none are kept");
  }

  [[noreturn]] void fail(int status, const std::string& message) {
    rollback();
    throw ImportFailed(status, message);
  }

  [[noreturn]] void lost() {
    throw ImportFailed(503, "the connection to the project's database was lost; nothing was kept",
                       true);
  }

  void rollback() {
    if (inCopy_) {
      PQputCopyEnd(conn_, "the import stopped");
      inCopy_ = false;
    }
    // Drain whatever is still coming, then end the transaction.
    Deadline deadline = Deadline::after(std::chrono::seconds(30));
    try {
      if (pipeline_) {
        if (!sent_.empty()) {
          PQpipelineSync(conn_);
          for (size_t i = 0; i < sent_.size(); ++i) {
            while (PgResult result = nextResult(conn_, deadline)) {
            }
          }
          PgResult sync = nextResult(conn_, deadline);  // PGRES_PIPELINE_SYNC
          sent_.clear();
        }
        PQexitPipelineMode(conn_);
        pipeline_ = false;
      }
      while (PgResult result = nextResult(conn_, deadline)) {
      }
      const PGTransactionStatusType status = PQtransactionStatus(conn_);
      if (status == PQTRANS_INTRANS || status == PQTRANS_INERROR)
        PgResult(PQexec(conn_, "ROLLBACK"));
    } catch (const PgError&) {
      // The connection is gone: the server rolled the transaction back itself.
    }
  }

  PGconn* conn_;
  const ImportOptions& options_;
  const std::function<void(const ImportProgress&)>& progress_;
  ImportProgress state_;
  Clock::time_point nextReport_;
  Deadline deadline_;
  Sent current_{0, 0};  // the statement running on its own (COPY)
  bool inCopy_ = false;
  bool pipeline_ = false;
  std::vector<Sent> sent_;  // in the pipeline, results not read yet
  size_t sentBytes_ = 0;
};

}  // namespace

ImportProgress runImport(PgSession& session, const std::string& path, const ImportOptions& options,
                         const std::function<void(const ImportProgress&)>& progress) {
  std::optional<ScriptReader> reader;
  try {
    ScriptReaderOptions reader_options;
    reader_options.maxBytes = options.maxBytes;
    reader.emplace(path, reader_options);
  } catch (const ScriptError& e) {
    throw ImportFailed(e.kind() == ScriptError::Kind::TooLarge ? 413 : 400, e.what());
  }
  Importer importer(session, options, progress);
  return importer.run(*reader);
}

}  // namespace berth::sqlconsole
