// A set of threads of a part's own for work that must not hold the thread that has it (a
// server thread, the job scheduler): the core's jobs, sqlconsole's database work, storage's
// uploads, runtime's builds.
//
// Fair shares: every task belongs to a key (a project, say; a pool with one key is a plain FIFO
// queue). Each key runs at most `perKeyRunning` tasks at once and keeps the rest in a queue of
// its own (at most `perKeyQueue`); a free thread takes the next task of the keys that have work
// and are under their cap, in turn (round robin). So one key's slow tasks hold at most its own
// share of the threads, and another key's work never waits behind its queue.
//
// A task must not throw (an exception that leaves it ends the process): the caller's wrapper
// answers or logs what it throws.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace berth::common {

struct PoolLimits {
  static constexpr size_t kNoLimit = std::numeric_limits<size_t>::max();
  size_t threads = 1;               // how many tasks run at once, all keys together
  size_t perKeyRunning = kNoLimit;  // how many of one key's tasks run at once (0 counts as 1)
  size_t perKeyQueue = kNoLimit;    // how many of one key's tasks may wait (more are refused)
  size_t totalQueue = kNoLimit;     // how many tasks may wait, all keys together
};

class WorkerPool {
 public:
  using Task = std::function<void()>;
  // Now: the threads start with the pool. Later: at start(). OnFirstPost: with the first task
  // posted (a pool most runs of berthd never use costs no threads).
  enum class Start { Now, Later, OnFirstPost };
  // What stop() does with the tasks still waiting: run them first, or hand them back unrun.
  enum class Leftovers { Finish, Drop };

  explicit WorkerPool(PoolLimits limits, Start start = Start::Now);
  ~WorkerPool();  // stop(Leftovers::Finish)
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Starts the threads if they are not running (for Start::Later; after stop() has returned, a
  // new set: the pool takes tasks again). With a count, that many (limits().threads reads it).
  void start();
  void start(size_t threads);

  // NotRunning: not started yet (Start::Later), or stopping or stopped.
  enum class Posted { Queued, KeyQueueFull, PoolFull, NotRunning };
  Posted post(const std::string& key, Task task);
  Posted post(Task task) { return post(std::string(), std::move(task)); }

  // Takes no more tasks, lets the running ones end, joins the threads. Finish: the waiting tasks
  // run first and nothing is returned; Drop: they never run and are returned (in the order they
  // were posted within a key; keys in no particular order). A second call returns at once.
  std::vector<Task> stop(Leftovers leftovers = Leftovers::Finish);

  // The limits as applied (perKeyRunning 0 reads 1).
  const PoolLimits& limits() const { return limits_; }

 private:
  struct Lane {
    std::deque<Task> waiting;
    size_t running = 0;
    bool ready = false;  // in ready_
  };
  void run();
  // Puts the lane in turn when it has work and room to run it (mutex_ held).
  void markReady(const std::string& key, Lane& lane);
  void startThreads();  // mutex_ held

  PoolLimits limits_;
  const Start start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::unordered_map<std::string, Lane> lanes_;
  std::deque<std::string> ready_;  // keys with waiting work under their cap, in turn
  size_t waiting_ = 0;             // tasks waiting, all lanes
  bool running_ = false;           // takes tasks (threads started, not stopping)
  bool stopped_ = false;           // stop() was called (and start() not since)
  std::vector<std::thread> threads_;
};

}  // namespace berth::common
