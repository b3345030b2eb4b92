// A real S3-compatible server for the storage plugin's S3 backend tests: s3rver (npm, pinned by
// tests/support/s3rver/package-lock.json; scripts/install-deps.sh installs it) on a free
// loopback port, with one bucket, its objects in a temporary folder. start() waits until it
// accepts connections; stop() ends it (SIGTERM) and a later start() brings it back on the
// same port with the same objects, so a test can take the store away and give it back.
//
// s3rver checks the access key (S3RVER) but not SigV4 signatures: the signatures are tested
// on their own (tests/storage/s3_signing_test.cpp).
#pragma once
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include "support/berthd_process.hpp"
#include "util/process.hpp"

namespace berth::testing {

class S3rverProcess {
 public:
  static constexpr const char* kAccessKey = "S3RVER";
  static constexpr const char* kSecret = "S3RVER";

  explicit S3rverProcess(std::string bucket = "berth-test") : bucket_(std::move(bucket)) {
    dir_ = makeTempDir("s3rver");
    port_ = freePort();
  }
  ~S3rverProcess() {
    stop();
    removeTree(dir_);
    std::filesystem::remove(dir_ + ".log");
  }
  S3rverProcess(const S3rverProcess&) = delete;
  S3rverProcess& operator=(const S3rverProcess&) = delete;

  static std::string script() {
    return std::string(BERTH_TEST_SOURCE_DIR) +
           "/tests/support/s3rver/node_modules/s3rver/bin/s3rver.js";
  }

  void start() {
    if (!std::filesystem::exists(script()))
      throw std::runtime_error(script() + " is missing: run scripts/install-deps.sh");
    core::SpawnOptions options;
    options.output_file = dir_ + ".log";
    child_ = core::spawn({"node", script(), "-d", dir_ + "/data", "-a", "127.0.0.1", "-p",
                          std::to_string(port_), "-s", "--configure-bucket", bucket_},
                         options);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!accepts()) {
      if (!child_.running())
        throw std::runtime_error("s3rver exited at start: " + readFile(dir_ + ".log"));
      if (std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("s3rver did not listen within 30 s");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  void stop() {
    if (child_.pid() > 0 && child_.running()) child_.stop(std::chrono::seconds(5));
    child_ = core::Child();
  }

  bool running() { return child_.pid() > 0 && child_.running(); }

  // SIGSTOP / SIGCONT: a store that accepts connections and never answers.
  void pause() { child_.signal(SIGSTOP); }
  void resume() { child_.signal(SIGCONT); }

  uint16_t port() const { return port_; }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  const std::string& bucket() const { return bucket_; }
  const std::string& directory() const { return dir_; }

 private:
  static uint16_t freePort() {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t size = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size);
    ::close(fd);
    return ntohs(addr.sin_port);
  }

  bool accepts() const {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port_);
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
  }

  std::string bucket_;
  std::string dir_;
  uint16_t port_ = 0;
  core::Child child_;
};

}  // namespace berth::testing
