// The threads that build releases (unpack, npm ci ...), so that no server thread ever waits
// for a build. A few threads, started on the first build; builds of different projects run
// side by side, and one project never has two (the database allows one building release). The
// threads and the queue are a berth::common::WorkerPool's (one lane, started on the first post);
// what is runtime's is the job and handing back the ones never started.
#pragma once
#include <berth/common/worker_pool.hpp>

#include <functional>
#include <optional>
#include <string>
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
  BuildWorker(Run run, unsigned threads)
      : run_(std::move(run)),
        pool_(common::PoolLimits{.threads = threads}, common::WorkerPool::Start::OnFirstPost) {}
  ~BuildWorker() { stop(); }
  BuildWorker(const BuildWorker&) = delete;
  BuildWorker& operator=(const BuildWorker&) = delete;

  // Queues a build; false once stopping (the caller fails the release).
  bool post(BuildJob job);
  // Lets running builds finish, joins the threads; returns the builds never started.
  std::vector<BuildJob> stop();

 private:
  // A queued build: stop() finds the job again in the pool's dropped tasks by this type.
  struct Queued {
    const Run* run;
    BuildJob job;
    // run_ catches what a build throws; a build never ends a worker thread.
    void operator()() const { (*run)(job); }
  };

  Run run_;
  common::WorkerPool pool_;  // last: its threads are joined before run_ goes
};

}  // namespace berth::runtime
