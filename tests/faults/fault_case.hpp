// What the berthd-kill cases of tests/faults/ share: a FaultServer with the feature plugins and
// an account, a fault loop per mode, and the checks every kill point ends with.
#pragma once
#include <openssl/evp.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include "../projects/api_support.hpp"
#include "support/fault_injection.hpp"
#include "support/tar_gz.hpp"

namespace berth::testing::faults {

inline std::string sha256Hex(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

// `size` bytes that do not compress (a release's unpacking then costs what its size says).
inline std::string randomBytes(size_t size, std::mt19937_64& engine) {
  std::string out(size, '\0');
  for (size_t i = 0; i + 8 <= size; i += 8) {
    uint64_t v = engine();
    std::memcpy(out.data() + i, &v, 8);
  }
  return out;
}

// One case's berthd (projects, storage, runtime, sqlconsole, scheduler) and its account. Creation
// is not throttled, so that a case may make a project per kill point.
class FaultCase {
 public:
  FaultCase(const std::string& name, FaultMode mode, const std::string& extra_yaml = "")
      : name_(name), mode_(mode), random_(name, mode), tally_(name, mode) {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime", "sqlconsole", "scheduler"};
    options.extra_yaml = projects_api::secretsKeyYaml() +
                         "  creation_burst: 1000\n"
                         "runtime:\n  unsafe_run_without_sandbox: true\n" +
                         extra_yaml;
    server_ = std::make_unique<FaultServer>(options);
    server_->start();
    account_ = projects_api::makeAccount(server_->process(), "fault" + shortId(), "pro");
  }

  FaultServer& server() { return *server_; }
  FaultRandom& random() { return random_; }
  FaultMode mode() const { return mode_; }
  ApiClient api() const { return server_->api(account_.token); }
  std::string baseUrl() const { return server_->baseUrl(); }
  const projects_api::Account& account() const { return account_; }
  std::string projectName(const std::string& label) const {
    return projects_api::projectName(label, account_.slug);
  }
  std::string host(const std::string& label) const { return projectName(label) + ".localhost"; }

  // A project's id in the control plane (of the first start: every later start shares it).
  std::string projectId(const std::string& label) const {
    core::Pool db(server_->databaseUrl(), 1, std::chrono::seconds(10));
    auto r = db.exec("SELECT id FROM projects.projects WHERE name = $1", {projectName(label)});
    if (r.rows() != 1) throw std::runtime_error("no project row for " + projectName(label));
    return r.value(0, 0);
  }

  // Creates a project (fails the case's setup when refused).
  void createProject(const std::string& label) { projects_api::mustCreate(api(), label); }

  // The fault at `at` into berthd during `operation`, then what makes the server usable again:
  // after a kill a new start on the same data_dir; after a stop (the berthd goes on) nothing.
  FaultRun strike(const std::function<HttpResult()>& operation, milliseconds at) {
    FaultRun run = runWithFault(
        operation, at, [this] { return server_->pid(); }, mode_);
    if (mode_ == FaultMode::Kill) {
      server_->restartAfterKill();
      waitForSweeps();
    }
    return run;
  }

  // The start-up sweeps are jobs that run just after a start: the case's checks wait for them
  // (up to 20 s each) before judging what is listed. What is still wrong then is reported by
  // finishPoint.
  void waitForSweeps() {
    Findings files;
    checkNoLeftoverFiles(server_->dataDir(), files);
    for (int i = 0; i < 100; ++i) {
      Findings half_made;
      checkNothingHalfMade(*server_, half_made);
      if (half_made.ok()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }

  // A client's timeout for an operation struck at `at`: after a kill the connection breaks at
  // once; during a stop the client gives up 2 s into it, well before the stop ends, as a client
  // with any timeout shorter than the stop would.
  long clientTimeoutMs(milliseconds at, long unfaulted_ms) const {
    if (mode_ == FaultMode::Kill) return unfaulted_ms * 4 + 60000;
    return at.count() + 2000;
  }

  // The checks every kill point ends with, beside the case's own (already in `findings`).
  void finishPoint(Findings& findings, const std::string& point) {
    checkNoLeftoverFiles(server_->dataDir(), findings);
    auto projects = listedProjects(api(), findings);
    checkRoutesAnswer(api(), projects, findings);
    checkNothingHalfMade(*server_, findings);
    if (!findings.ok()) {
      // Every start's whole output, kept beside the tally for whoever looks into it.
      const std::string file = "/tmp/berth-fault-" + name_ + "-" + modeName(mode_) + "-" +
                               std::to_string(::getpid()) + "-" + std::to_string(tally_.tried()) +
                               ".log";
      std::ofstream(file) << server_->output();
      std::cout << "berthd's output: " << file << std::endl;
    }
    tally_.record(findings, point);
  }

  const FaultTally& tally() const { return tally_; }

 private:
  static std::string shortId() {
    static int n = 0;
    return std::to_string(::getpid() % 10000) + std::to_string(n++);
  }

  std::string name_;
  FaultMode mode_;
  FaultRandom random_;
  FaultTally tally_;
  std::unique_ptr<FaultServer> server_;
  projects_api::Account account_;
};

inline std::string describePoint(int round, const FaultRun& run) {
  return "round=" + std::to_string(round) + " at=" + std::to_string(run.at.count()) +
         "ms answer=" + std::to_string(run.answer.status) +
         (run.operation_done_first ? " (after the answer)" : "");
}

// A raw body to a route with a timeout of its own.
inline HttpResult rawWithTimeout(const FaultCase& c, const std::string& method,
                                 const std::string& path, const std::string& body,
                                 std::vector<std::string> headers, long timeout_ms) {
  HttpRequestSpec spec;
  spec.method = method;
  spec.url = c.api().base() + path;
  spec.body = body;
  spec.headers = std::move(headers);
  spec.headers.push_back("Authorization: Bearer " + c.account().token);
  spec.timeout_ms = timeout_ms;
  return send(spec);
}

}  // namespace berth::testing::faults
