// Fault injection for the tests of tests/faults/: a real berthd (with its nginx and PostgreSQL)
// is killed outright (SIGKILL) or stopped (SIGSTOP, longer than every timeout that matters, then
// SIGCONT) at a random moment of an operation, started again on the same data_dir and control
// plane, and checked: the old state or the new one, never half of either; nothing half-made
// listed; no leftover temporary files; every route answers.
//
// Randomness is reproducible: one seed per program (BERTH_FAULT_SEED, else a random one, printed
// once), mixed with each case's name. BERTH_FAULT_ROUNDS (default 3) says how many kill points
// a case tries per mode. Each case ends with one line the closing note and scripts/faults.sh
// read:
//   fault-summary: case=<name> mode=<kill|stop> tried=N inconsistent=M seed=S
#pragma once
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "support/berthd_process.hpp"
#include "support/http_client.hpp"

namespace berth::testing::faults {

using std::chrono::milliseconds;

enum class FaultMode { Kill, Stop };
const char* modeName(FaultMode mode);  // "kill" or "stop"
// Both modes, or the one BERTH_FAULT_MODES names ("kill", "stop").
std::vector<FaultMode> faultModes();

// The program's seed (printed once: "fault seed: N, rerun with BERTH_FAULT_SEED=N").
uint64_t faultSeed();
// Kill points per case and mode: BERTH_FAULT_ROUNDS, default 3.
int faultRounds();
// How long a SIGSTOP lasts: BERTH_FAULT_STOP_MS, default 8 s. Cases keep every timeout that
// matters below it (their client's, the ones they set in berthd's config).
milliseconds stopDuration();

// A case's random source: the program's seed mixed with the case's name and mode, so each case
// draws the same points on a rerun with the same seed, whichever cases run beside it.
class FaultRandom {
 public:
  FaultRandom(const std::string& case_name, FaultMode mode);
  // A kill point: uniform in [0, duration].
  milliseconds pointWithin(milliseconds duration);
  // Uniform in [0, n).
  uint64_t below(uint64_t n);
  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
};

// --- processes ---------------------------------------------------------------------------

bool processAlive(pid_t pid);  // exists and is not a zombie
// nginx's master of a berthd (its data_dir/edge/nginx.pid); 0 when none is running.
pid_t nginxMasterPid(const std::string& data_dir);
// The postmaster of a PostgreSQL data directory (first line of postmaster.pid); 0 when none.
// berthd's embedded cluster keeps it in <data_dir>/pg/data.
pid_t postmasterPid(const std::string& pg_data_dir);
std::string embeddedPgData(const std::string& data_dir);

// SIGKILL, then wait (up to 20 s) until the process is gone or a zombie.
void killProcess(pid_t pid);
// SIGSTOP (every thread stopped), `how_long`, SIGCONT.
void stopProcessFor(pid_t pid, milliseconds how_long);
void injectFault(pid_t pid, FaultMode mode, milliseconds stop_for = stopDuration());

// Runs `operation` on a thread; `at` after it began, injects the fault into the process
// `target()` names at that moment (also when the operation is already over: a point after the
// end is a point too). Returns once both the operation and the fault are done.
struct FaultRun {
  HttpResult answer;
  milliseconds at{0};
  bool operation_done_first = false;  // the answer came before the fault
};
FaultRun runWithFault(const std::function<HttpResult()>& operation, milliseconds at,
                      const std::function<pid_t()>& target, FaultMode mode,
                      milliseconds stop_for = stopDuration());

// How long `operation` takes, unfaulted.
milliseconds measure(const std::function<void()>& operation);

// --- a berthd that outlives its crashes ------------------------------------------------------

// Every start uses the same data_dir, the same control-plane database and the same plugins
// (copied from the build once, unless options.plugin_dir names a folder); the processes of
// earlier starts are kept (their output) until the object goes.
class FaultServer {
 public:
  explicit FaultServer(BerthdOptions options);
  ~FaultServer();

  void start();
  // After a kill: waits until the killed berthd and its nginx are gone, then starts again.
  void restartAfterKill();
  // A clean stop (SIGTERM) and start, as an operator would.
  void restart();

  BerthdProcess& process() { return *current_; }
  pid_t pid() const { return current_->pid(); }
  const std::string& dataDir() const { return data_dir_; }
  const std::string& databaseUrl() const { return database_url_; }
  // The superuser URL of the cluster holding the control plane and the project databases.
  std::string clusterUrl(const std::string& database = "postgres") const;
  ApiClient api(const std::string& token = "") const { return current_->api(token); }
  std::string baseUrl() const { return current_->baseUrl(); }
  // Every start's output, oldest first (for a failure's message).
  std::string output() const;
  // Project databases and roles on the cluster before this server's first start (an earlier
  // test's): not this server's, so not its leftovers.
  const std::set<std::string>& foreignDatabaseObjects() const { return foreign_; }

 private:
  void startNew();

  BerthdOptions options_;
  std::string data_dir_, database_url_;
  bool own_data_dir_ = false;
  std::string plugin_copy_;  // the plugins every start loads, copied once from the build
  std::set<std::string> foreign_;
  std::vector<std::unique_ptr<BerthdProcess>> processes_;
  BerthdProcess* current_ = nullptr;
};

// --- checks -----------------------------------------------------------------------------

// What a check found wrong, one sentence each.
struct Findings {
  std::vector<std::string> problems;
  void add(std::string problem) { problems.push_back(std::move(problem)); }
  bool ok() const { return problems.empty(); }
  std::string text() const;
};

// Every GET route of the API's reference (docs/openapi.yaml) whose only path parameter is a
// project's name, for each of `projects`, and every GET route without parameters, answers
// without a 5xx and without a transport error.
void checkRoutesAnswer(const ApiClient& api, const std::vector<std::string>& projects,
                       Findings& findings);

// Files in berthd's temporary, spool and staging folders under data_dir: the edge's spooled
// bodies, the blob store's writes in progress, half-unpacked releases, unfinished exports.
std::vector<std::string> leftoverFiles(const std::string& data_dir);
// The same, waited for: the sweeps run as jobs soon after a start, so they get `within`.
void checkNoLeftoverFiles(const std::string& data_dir, Findings& findings,
                          milliseconds within = std::chrono::seconds(20));

// Nothing half-made: every project row is 'ready', has its database and role, and every
// project database, role and per-project folder (releases, homes, blobs, edge trees) belongs to
// a ready project. Needs the control plane on the tests' shared cluster (not the embedded one).
void checkNothingHalfMade(const FaultServer& server, Findings& findings);

// The project's names, as GET /projects lists them ("" and a finding when it does not answer).
std::vector<std::string> listedProjects(const ApiClient& api, Findings& findings);

// Waits (up to `within`) until no session on `database` of the cluster runs a statement or holds
// a transaction (idle pooled connections are fine): an operation that went on after a SIGCONT
// is over then.
void waitDatabaseQuiet(const std::string& cluster_url, const std::string& database,
                       milliseconds within = std::chrono::seconds(60));

// --- the tally ------------------------------------------------------------------------------

// Counts kill points and those that left an inconsistency; prints each inconsistency as found
// and the fault-summary line when it goes.
class FaultTally {
 public:
  FaultTally(std::string case_name, FaultMode mode);
  ~FaultTally();
  // One kill point tried; inconsistent when `findings` is not ok (printed with `point`).
  void record(const Findings& findings, const std::string& point);
  int tried() const { return tried_; }
  int inconsistent() const { return inconsistent_; }

 private:
  std::string name_;
  FaultMode mode_;
  int tried_ = 0, inconsistent_ = 0;
};

}  // namespace berth::testing::faults
