// The threads that build releases (unpack, npm ci ...), so that no server thread ever waits
// for a build. A few threads, started on the first build; builds of different projects run
// side by side, and one project never has two (the database allows one building release).
#pragma once
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace berth::runtime {

struct BuildJob {
  std::string project_id;
  std::string project;  // name, for log lines
  std::string release_id;
  std::optional<std::string> header;  // x-berth-cmd
  std::string project_cmd;
};

class BuildWorker {
 public:
  using Run = std::function<void(const BuildJob&)>;
  BuildWorker(Run run, unsigned threads) : run_(std::move(run)), thread_count_(threads) {}
  ~BuildWorker() { stop(); }
  BuildWorker(const BuildWorker&) = delete;
  BuildWorker& operator=(const BuildWorker&) = delete;

  // Queues a build; false once stopping (the caller fails the release).
  bool post(BuildJob job);
  // Lets running builds finish, joins the threads; returns the builds never started.
  std::vector<BuildJob> stop();

 private:
  void loop();

  Run run_;
  unsigned thread_count_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<BuildJob> queue_;
  std::vector<std::thread> threads_;
  bool stopping_ = false;
};

}  // namespace berth::runtime
