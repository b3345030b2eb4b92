#include "support/fault_injection.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "db/pool.hpp"
#include "support/openapi_document.hpp"
#include "support/process_pause.hpp"

namespace berth::testing::faults {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::optional<uint64_t> envNumber(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return std::nullopt;
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    throw std::runtime_error(std::string(name) + " must be a whole number, not '" + text + "'");
  }
}

// FNV-1a: a stable mix of a case's name into the seed (std::hash may differ between builds).
uint64_t mixName(uint64_t seed, const std::string& text) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string firstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

pid_t pidFromFile(const std::string& path) {
  try {
    std::string line = firstLine(path);
    if (line.empty()) return 0;
    pid_t pid = static_cast<pid_t>(std::stol(line));
    return pid > 1 && processAlive(pid) ? pid : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

// Regular files below `dir` (not following links), each as its path.
void filesBelow(const fs::path& dir, std::vector<std::string>& out) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec)) out.push_back(it->path().string());
  }
}

std::vector<std::string> entriesOf(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename().string());
  return names;
}

}  // namespace

const char* modeName(FaultMode mode) {
  return mode == FaultMode::Kill ? "kill" : "stop";
}

std::vector<FaultMode> faultModes() {
  const char* only = std::getenv("BERTH_FAULT_MODES");
  std::string text = only ? only : "";
  std::vector<FaultMode> modes;
  if (text.empty() || text.find("kill") != std::string::npos) modes.push_back(FaultMode::Kill);
  if (text.empty() || text.find("stop") != std::string::npos) modes.push_back(FaultMode::Stop);
  return modes;
}

uint64_t faultSeed() {
  static const uint64_t seed = [] {
    uint64_t s = envNumber("BERTH_FAULT_SEED").value_or(0);
    if (s == 0) {
      std::random_device device;
      s = (uint64_t(device()) << 32 | device()) % 1000000000000ull;
      if (s == 0) s = 1;
    }
    std::cout << "fault seed: " << s << ", rerun with BERTH_FAULT_SEED=" << s << std::endl;
    return s;
  }();
  return seed;
}

int faultRounds() {
  auto rounds = envNumber("BERTH_FAULT_ROUNDS").value_or(3);
  return static_cast<int>(std::max<uint64_t>(1, rounds));
}

milliseconds stopDuration() {
  return milliseconds(envNumber("BERTH_FAULT_STOP_MS").value_or(8000));
}

FaultRandom::FaultRandom(const std::string& case_name, FaultMode mode)
    : engine_(mixName(faultSeed(), case_name + "/" + modeName(mode))) {}

milliseconds FaultRandom::pointWithin(milliseconds duration) {
  std::uniform_int_distribution<int64_t> pick(0, std::max<int64_t>(0, duration.count()));
  return milliseconds(pick(engine_));
}

uint64_t FaultRandom::below(uint64_t n) {
  if (n == 0) return 0;
  return std::uniform_int_distribution<uint64_t>(0, n - 1)(engine_);
}

// --- processes ---------------------------------------------------------------------------

bool processAlive(pid_t pid) {
  if (pid <= 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  auto close = all.rfind(')');
  if (close == std::string::npos || close + 2 >= all.size()) return false;
  char state = all[close + 2];
  return state != 'Z' && state != 'X';
}

pid_t nginxMasterPid(const std::string& data_dir) {
  return pidFromFile(data_dir + "/edge/nginx.pid");
}

pid_t postmasterPid(const std::string& pg_data_dir) {
  return pidFromFile(pg_data_dir + "/postmaster.pid");
}

std::string embeddedPgData(const std::string& data_dir) {
  return data_dir + "/pg/data";
}

void killProcess(pid_t pid) {
  if (pid <= 0) throw std::runtime_error("no process to kill");
  ::kill(pid, SIGKILL);
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  while (processAlive(pid)) {
    if (Clock::now() > deadline)
      throw std::runtime_error("process " + std::to_string(pid) + " survived SIGKILL");
    std::this_thread::sleep_for(milliseconds(10));
  }
}

void stopProcessFor(pid_t pid, milliseconds how_long) {
  if (pid <= 0) throw std::runtime_error("no process to stop");
  ProcessPause pause(pid);
  std::this_thread::sleep_for(how_long);
}

void injectFault(pid_t pid, FaultMode mode, milliseconds stop_for) {
  if (mode == FaultMode::Kill)
    killProcess(pid);
  else
    stopProcessFor(pid, stop_for);
}

FaultRun runWithFault(const std::function<HttpResult()>& operation, milliseconds at,
                      const std::function<pid_t()>& target, FaultMode mode, milliseconds stop_for) {
  FaultRun run;
  run.at = at;
  std::mutex mutex;
  bool done = false;
  const auto begin = Clock::now();
  std::thread worker([&] {
    HttpResult answer = operation();
    std::lock_guard lock(mutex);
    run.answer = std::move(answer);
    done = true;
  });
  std::this_thread::sleep_until(begin + at);
  {
    std::lock_guard lock(mutex);
    run.operation_done_first = done;
  }
  try {
    injectFault(target(), mode, stop_for);
  } catch (...) {
    worker.join();
    throw;
  }
  worker.join();
  return run;
}

milliseconds measure(const std::function<void()>& operation) {
  const auto begin = Clock::now();
  operation();
  return std::chrono::duration_cast<milliseconds>(Clock::now() - begin);
}

// --- the server ---------------------------------------------------------------------------

FaultServer::FaultServer(BerthdOptions options) : options_(std::move(options)) {
  own_data_dir_ = options_.data_dir.empty();
  data_dir_ = own_data_dir_ ? makeTempDir("berth-fault") + "/data" : options_.data_dir;
  options_.data_dir = data_dir_;
  // A copy of the plugins, taken once: every restart of a case loads the same ones, even when
  // the shared build tree is rebuilt meanwhile (a plugin half-written by a build fails to load).
  if (options_.plugin_dir.empty()) {
    plugin_copy_ = makeTempDir("berth-fault-plugins");
    const fs::path dir = plugin_copy_;
    for (const char* from : {BERTH_TEST_PLUGIN_DIR, BERTH_TEST_FIXTURE_PLUGIN_DIR}) {
      std::error_code ec;
      for (const auto& entry : fs::directory_iterator(from, ec))
        if (entry.path().extension() == ".so")
          fs::copy_file(entry.path(), dir / entry.path().filename(),
                        fs::copy_options::overwrite_existing);
    }
    options_.plugin_dir = dir.string();
  }
}

FaultServer::~FaultServer() {
  // Newest first: only the newest may still run.
  for (auto it = processes_.rbegin(); it != processes_.rend(); ++it) it->reset();
  if (own_data_dir_) removeTree(fs::path(data_dir_).parent_path().string());
  if (!plugin_copy_.empty()) removeTree(plugin_copy_);
}

void FaultServer::startNew() {
  BerthdOptions options = options_;
  // The control plane of the first start, for every later one.
  if (!database_url_.empty()) options.set.push_back("database.url=" + database_url_);
  processes_.push_back(std::make_unique<BerthdProcess>(options));
  current_ = processes_.back().get();
  current_->start();
  if (database_url_.empty()) database_url_ = current_->databaseUrl();
}

void FaultServer::start() {
  startNew();
  if (options_.embedded_database) return;
  core::Pool cluster(clusterUrl(), 1, std::chrono::seconds(10));
  auto names = cluster.exec(
      "SELECT datname FROM pg_database WHERE datname ~ '^p_' "
      "UNION SELECT rolname FROM pg_roles WHERE rolname ~ '^p_'");
  for (int i = 0; i < names.rows(); ++i) foreign_.insert(names.value(i, 0));
}

void FaultServer::restartAfterKill() {
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (current_->running() && Clock::now() < deadline)
    std::this_thread::sleep_for(milliseconds(10));
  if (current_->running()) throw std::runtime_error("the killed berthd is still running");
  // nginx follows its berthd through its parent-death signal; berthd's start would kill a
  // leftover master too, but a restart that needs that is worth seeing as such.
  while (nginxMasterPid(data_dir_) != 0 && Clock::now() < deadline)
    std::this_thread::sleep_for(milliseconds(10));
  startNew();
}

void FaultServer::restart() {
  current_->terminate();
  startNew();
}

std::string FaultServer::clusterUrl(const std::string& database) const {
  // The tests' databases live on the shared cluster: postgresql://berth@127.0.0.1:PORT/<db>.
  auto slash = database_url_.rfind('/');
  return database_url_.substr(0, slash + 1) + database;
}

std::string FaultServer::output() const {
  std::string all;
  for (size_t i = 0; i < processes_.size(); ++i)
    all += "--- berthd start " + std::to_string(i + 1) + " ---\n" + processes_[i]->output();
  return all;
}

// --- checks -------------------------------------------------------------------------------

std::string Findings::text() const {
  std::string all;
  for (const auto& p : problems) all += "  - " + p + "\n";
  return all;
}

void checkRoutesAnswer(const ApiClient& api, const std::vector<std::string>& projects,
                       Findings& findings) {
  static const nlohmann::json document = loadOpenApiDocument();
  const nlohmann::json paths = document.at("paths");
  for (const auto& [path, item] : paths.items()) {
    if (!item.contains("get")) continue;
    // Project traffic ("/", "/{path}", "/_files/...") is the apps'; the export is a whole
    // database's download, not a listing.
    if (path == "/" || path.rfind("/_", 0) == 0 || path.rfind("/{", 0) == 0) continue;
    if (path.ends_with("/export") || path == "/docs" || path == "/openapi.json") continue;
    std::string rest = path;
    bool per_project = false;
    if (auto at = rest.find("{name}"); at != std::string::npos) {
      per_project = true;
      rest.erase(at, 6);
    }
    if (rest.find('{') != std::string::npos) continue;  // needs an id we do not have
    std::vector<std::string> targets;
    if (!per_project) targets.push_back(path);
    for (const auto& name : per_project ? projects : std::vector<std::string>{}) {
      std::string p = path;
      p.replace(p.find("{name}"), 6, name);
      targets.push_back(p);
    }
    for (const auto& target : targets) {
      HttpResult answer = api.get(target);
      if (answer.status == 0)
        findings.add("GET " + target + " got no answer: " + answer.error);
      else if (answer.status >= 500)
        findings.add("GET " + target + " answered " + std::to_string(answer.status) + ": " +
                     answer.body.substr(0, 300));
    }
  }
}

std::vector<std::string> leftoverFiles(const std::string& data_dir) {
  std::vector<std::string> found;
  const fs::path root(data_dir);
  // The edge's spooled request bodies (emptied at every start).
  filesBelow(root / "edge" / "client_body", found);
  // The blob store's writes in progress (removed at every start).
  filesBelow(root / "blobs" / "tmp", found);
  // Unfinished exports.
  for (const auto& name : entriesOf(root / "sqlconsole" / "exports"))
    if (name.find(".part") != std::string::npos || name.rfind('.', 0) == 0)
      found.push_back((root / "sqlconsole" / "exports" / name).string());
  // Half-unpacked releases: .<release>.unpacking-<random> beside a project's release folders.
  for (const auto& project : entriesOf(root / "releases"))
    for (const auto& name : entriesOf(root / "releases" / project))
      if (name.find(".unpacking-") != std::string::npos || name.ends_with(".tmp") ||
          name.ends_with(".part"))
        found.push_back((root / "releases" / project / name).string());
  return found;
}

void checkNoLeftoverFiles(const std::string& data_dir, Findings& findings, milliseconds within) {
  const auto deadline = Clock::now() + within;
  std::vector<std::string> left = leftoverFiles(data_dir);
  while (!left.empty() && Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(200));
    left = leftoverFiles(data_dir);
  }
  for (const auto& path : left) findings.add("leftover file after the start-up sweep: " + path);
}

void checkNothingHalfMade(const FaultServer& server, Findings& findings) {
  core::Pool control(server.databaseUrl(), 1, std::chrono::seconds(10));
  core::Pool cluster(server.clusterUrl(), 1, std::chrono::seconds(10));
  std::set<std::string> ready, all;
  auto rows = control.exec(
      "SELECT id, name, status, coalesce(db_name, ''), coalesce(db_role, '') "
      "FROM projects.projects");
  std::set<std::string> databases, roles;
  auto dbs = cluster.exec("SELECT datname FROM pg_database WHERE datname ~ '^p_'");
  const auto& foreign = server.foreignDatabaseObjects();
  for (int i = 0; i < dbs.rows(); ++i)
    if (!foreign.count(dbs.value(i, 0))) databases.insert(dbs.value(i, 0));
  auto rls = cluster.exec("SELECT rolname FROM pg_roles WHERE rolname ~ '^p_'");
  for (int i = 0; i < rls.rows(); ++i)
    if (!foreign.count(rls.value(i, 0))) roles.insert(rls.value(i, 0));
  for (int i = 0; i < rows.rows(); ++i) {
    const std::string id = rows.value(i, 0), name = rows.value(i, 1), status = rows.value(i, 2);
    all.insert(id);
    if (status != "ready") {
      findings.add("project " + name + " (" + id + ") is left '" + status + "'");
      continue;
    }
    ready.insert(id);
    if (!databases.count(rows.value(i, 3)))
      findings.add("project " + name + " is ready but its database " + rows.value(i, 3) +
                   " is missing");
    if (!roles.count(rows.value(i, 4)))
      findings.add("project " + name + " is ready but its role " + rows.value(i, 4) +
                   " is missing");
  }
  for (const auto& db : databases)
    if (!ready.count(db.substr(2))) findings.add("database " + db + " belongs to no ready project");
  for (const auto& role : roles)
    if (!ready.count(role.substr(2))) findings.add("role " + role + " belongs to no ready project");
  // Per-project folders, named by the project's id.
  const fs::path root(server.dataDir());
  for (const fs::path& dir : {root / "releases", root / "runtime" / "homes",
                              root / "blobs" / "objects", root / "blobs" / "edge" / "projects"}) {
    for (const auto& name : entriesOf(dir)) {
      if (name.rfind('.', 0) == 0) continue;  // the runtime's own dot files are the sweep's
      if (!all.count(name))
        findings.add("folder " + (dir / name).string() + " belongs to no project");
    }
  }
}

std::vector<std::string> listedProjects(const ApiClient& api, Findings& findings) {
  std::vector<std::string> names;
  HttpResult list = api.get("/projects");
  if (list.status != 200) {
    findings.add("GET /projects answered " + std::to_string(list.status) + ": " + list.body +
                 list.error);
    return names;
  }
  auto body = list.json();
  if (body.contains("projects"))
    for (const auto& p : body["projects"]) names.push_back(p.value("name", ""));
  return names;
}

void waitDatabaseQuiet(const std::string& cluster_url, const std::string& database,
                       milliseconds within) {
  core::Pool cluster(cluster_url, 1, std::chrono::seconds(10));
  const auto deadline = Clock::now() + within;
  while (Clock::now() < deadline) {
    auto r = cluster.exec(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() "
        "AND state IS DISTINCT FROM 'idle'",
        {database});
    if (r.value(0, 0) == "0") return;
    std::this_thread::sleep_for(milliseconds(100));
  }
  throw std::runtime_error("sessions on " + database + " did not end within " +
                           std::to_string(within.count()) + " ms");
}

// --- the tally ----------------------------------------------------------------------------

FaultTally::FaultTally(std::string case_name, FaultMode mode)
    : name_(std::move(case_name)), mode_(mode) {}

FaultTally::~FaultTally() {
  std::cout << "fault-summary: case=" << name_ << " mode=" << modeName(mode_) << " tried=" << tried_
            << " inconsistent=" << inconsistent_ << " seed=" << faultSeed() << std::endl;
}

void FaultTally::record(const Findings& findings, const std::string& point) {
  ++tried_;
  if (findings.ok()) {
    std::cout << "fault point ok: case=" << name_ << " mode=" << modeName(mode_) << " " << point
              << std::endl;
    return;
  }
  ++inconsistent_;
  std::cout << "fault point INCONSISTENT: case=" << name_ << " mode=" << modeName(mode_) << " "
            << point << "\n"
            << findings.text() << std::flush;
}

}  // namespace berth::testing::faults
