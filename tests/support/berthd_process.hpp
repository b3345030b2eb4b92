// A real berthd for API tests: its own data_dir, its own database on the shared test cluster,
// its nginx edge on a free loopback port. Stopped with SIGTERM and cleaned up on destruction.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "support/http_client.hpp"
#include "util/process.hpp"

namespace berth::testing {

struct BerthdOptions {
  std::vector<std::string> plugins = {"projects"};
  std::string plugin_dir;          // empty: the build's plugins and the test plugins, side by side
  std::string extra_yaml;          // appended to the generated berth.yaml (plugin sections ...)
  std::vector<std::string> set;    // --set key=value
  bool embedded_database = false;  // leave database.url empty: berthd starts its own cluster
  std::string data_dir;            // reuse a data_dir (second start); empty: a fresh temp dir
  std::string berthd;              // the berthd to run (an installed one); empty: the build's
};

class BerthdProcess {
 public:
  explicit BerthdProcess(BerthdOptions options = {});
  ~BerthdProcess();
  BerthdProcess(const BerthdProcess&) = delete;
  BerthdProcess& operator=(const BerthdProcess&) = delete;

  // Starts berthd and waits until it says it is ready; throws with its output when it exits.
  void start();
  // SIGTERM and wait; returns the exit status.
  core::ExitStatus terminate(std::chrono::milliseconds timeout = std::chrono::seconds(60));
  bool running();

  std::string baseUrl() const { return "http://127.0.0.1:" + std::to_string(port_); }
  uint16_t port() const { return port_; }
  pid_t pid() const { return child_.pid(); }
  const std::string& dataDir() const { return data_dir_; }
  const std::string& configFile() const { return config_file_; }
  // The control-plane database berthd uses (empty with the embedded database).
  const std::string& databaseUrl() const { return database_url_; }
  std::string output() const;  // what berthd printed (stdout + stderr + log)

  // Runs `berthd --config <ours> <args...>`.
  core::RunResult admin(const std::vector<std::string>& args) const;
  // account create + token create; returns the token.
  std::string createAccountWithToken(const std::string& email, const std::string& plan = "");
  ApiClient api(const std::string& token = "") const { return ApiClient(baseUrl(), token); }

 private:
  std::string binary() const;  // options_.berthd, else the build's

  BerthdOptions options_;
  std::string root_, data_dir_, config_file_, output_file_, database_url_;
  uint16_t port_ = 0;
  core::Child child_;
  bool own_root_ = true;
};

// Stops berthd (SIGTERM) and fails the current test unless it exited cleanly and printed no
// sanitizer report (a sanitizer build writes leaks and errors to its output; the exit status
// alone would not show a leak found at exit).
void stopCleanly(BerthdProcess& server);

// A fresh, world-traversable temporary directory (nginx workers and PostgreSQL run as other
// users when the tests run as root).
std::string makeTempDir(const std::string& prefix);
void removeTree(const std::string& path);
std::string readFile(const std::string& path);  // its bytes; "" when it cannot be read
// Writes `bytes` to `path` (replacing it); the folder must exist.
void writeFile(const std::string& path, const std::string& bytes);

}  // namespace berth::testing
