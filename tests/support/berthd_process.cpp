#include "support/berthd_process.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

#include "support/pg_cluster.hpp"

namespace berth::testing {

std::string makeTempDir(const std::string& prefix) {
  std::string tmpl = "/tmp/" + prefix + ".XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed");
  chmod(buf.data(), 0755);
  return buf.data();
}

void removeTree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

namespace {

std::string createDatabase() {
  static std::atomic<int> counter{0};
  std::string name =
      "berth_t" + std::to_string(getpid()) + "_" + std::to_string(counter.fetch_add(1));
  auto& cluster = sharedCluster();
  core::Pool admin(cluster.url("postgres"), 1, std::chrono::seconds(10));
  admin.exec("CREATE DATABASE " + name);
  return cluster.url(name);
}

// One folder holding the build's plugins and the test plugins (examples and fixtures).
std::string combinedPluginDir(const std::string& root) {
  std::string dir = root + "/plugins";
  std::filesystem::create_directories(dir);
  for (const char* from : {BERTH_TEST_PLUGIN_DIR, BERTH_TEST_FIXTURE_PLUGIN_DIR}) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(from, ec))
      if (entry.path().extension() == ".so")
        std::filesystem::create_symlink(entry.path(), dir + "/" + entry.path().filename().string());
  }
  return dir;
}

}  // namespace

BerthdProcess::BerthdProcess(BerthdOptions options) : options_(std::move(options)) {
  root_ = makeTempDir("berthd-test");
  data_dir_ = options_.data_dir.empty() ? root_ + "/data" : options_.data_dir;
  config_file_ = root_ + "/berth.yaml";
  output_file_ = root_ + "/berthd.out";
  port_ = core::freeLoopbackPort();

  std::ostringstream yaml;
  yaml << "server:\n  listen: \"127.0.0.1:" << port_ << "\"\n  drain_seconds: 10\n";
  yaml << "data_dir: \"" << data_dir_ << "\"\n";
  yaml << "database:\n  pool_size: 4\n";
  if (!options_.embedded_database) {
    database_url_ = createDatabase();
    yaml << "  url: \"" << database_url_ << "\"\n";
  }
  yaml << "log:\n  level: debug\n";
  yaml << "edge:\n  worker_processes: 1\n  backend_threads: 4\n";
  yaml << "plugins:\n  dir: \""
       << (options_.plugin_dir.empty() ? combinedPluginDir(root_) : options_.plugin_dir) << "\"\n";
  yaml << "  enabled: [";
  for (size_t i = 0; i < options_.plugins.size(); ++i)
    yaml << (i ? ", " : "") << options_.plugins[i];
  yaml << "]\n" << options_.extra_yaml << "\n";
  std::ofstream(config_file_) << yaml.str();
}

BerthdProcess::~BerthdProcess() {
  if (child_.pid() > 0 && running()) terminate(std::chrono::seconds(30));
  if (own_root_) removeTree(root_);
}

void BerthdProcess::start() {
  core::SpawnOptions spawn_options;
  spawn_options.output_file = output_file_;
  std::vector<std::string> argv = {binary(), "--config", config_file_};
  for (const auto& s : options_.set) {
    argv.push_back("--set");
    argv.push_back(s);
  }
  argv.push_back("serve");
  child_ = core::spawn(argv, spawn_options);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (std::chrono::steady_clock::now() < deadline) {
    if (readFile(output_file_).find("berthd ready on") != std::string::npos) return;
    if (!child_.running())
      throw std::runtime_error("berthd exited during start:\n" + readFile(output_file_));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw std::runtime_error("berthd did not get ready in time:\n" + readFile(output_file_));
}

core::ExitStatus BerthdProcess::terminate(std::chrono::milliseconds timeout) {
  child_.signal(SIGTERM);
  auto status = child_.wait(timeout);
  if (!status) return child_.stop(std::chrono::milliseconds(100));
  return *status;
}

bool BerthdProcess::running() {
  return child_.pid() > 0 && child_.running();
}

std::string BerthdProcess::output() const {
  return readFile(output_file_);
}

std::string BerthdProcess::binary() const {
  return options_.berthd.empty() ? BERTH_TEST_BERTHD : options_.berthd;
}

core::RunResult BerthdProcess::admin(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {binary(), "--config", config_file_};
  argv.insert(argv.end(), args.begin(), args.end());
  return core::runCommand(argv);
}

std::string BerthdProcess::createAccountWithToken(const std::string& email,
                                                  const std::string& plan) {
  std::vector<std::string> args = {"account", "create", "--email", email};
  if (!plan.empty()) {
    args.push_back("--plan");
    args.push_back(plan);
  }
  auto account = admin(args);
  if (!account.status.ok()) throw std::runtime_error("account create: " + account.output);
  auto token = admin({"token", "create", "--email", email});
  if (!token.status.ok()) throw std::runtime_error("token create: " + token.output);
  std::string t = token.output;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  // runCommand mixes stderr in; the token is the last line.
  auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

void stopCleanly(BerthdProcess& server) {
  auto status = server.terminate();
  std::string out = server.output();
  EXPECT_TRUE(status.ok()) << "berthd exited with " << status.code << ", signal " << status.signal
                           << ":\n"
                           << out.substr(out.size() > 4000 ? out.size() - 4000 : 0);
  for (const char* marker : {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"}) {
    size_t at = out.find(marker);
    EXPECT_EQ(at, std::string::npos) << out.substr(at == std::string::npos ? 0 : at, 4000);
  }
}

}  // namespace berth::testing
