// ctest-label: unit
// berth::common::WorkerPool, the threads the core's jobs, sqlconsole's database work, storage's
// uploads and runtime's builds run on: fair shares per key in turn, the refusals of full queues,
// the three ways to start and the two ways to stop. Every check is by order or by count (what
// ran while what was still held), never by how long something took.
#include <gtest/gtest.h>
#include <berth/common/worker_pool.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using berth::common::PoolLimits;
using berth::common::WorkerPool;
using Posted = WorkerPool::Posted;

namespace {

bool waitFor(const std::function<bool()>& cond) {
  for (int i = 0; i < 1000; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return cond();
}

// Holds the tasks that wait on it until opened; counts how many are inside. Declared before the
// pool in a test, so that the pool's threads are joined before it goes.
class Gate {
 public:
  void pass() {
    std::unique_lock lock(mutex_);
    ++inside_;
    changed_.notify_all();
    changed_.wait(lock, [this] { return open_; });
    --inside_;
  }
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  int inside() {
    std::lock_guard lock(mutex_);
    return inside_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int inside_ = 0;
  bool open_ = false;
};

// What the tasks did, in order.
class Trace {
 public:
  void add(const std::string& what) {
    std::lock_guard lock(mutex_);
    seen_.push_back(what);
  }
  std::vector<std::string> seen() {
    std::lock_guard lock(mutex_);
    return seen_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> seen_;
};

}  // namespace

TEST(WorkerPool, RunsEveryTaskWithAtMostItsThreadsAtOnce) {
  Gate gate;
  std::atomic<int> done{0};
  WorkerPool pool(PoolLimits{.threads = 3});
  for (int i = 0; i < 5; ++i)
    ASSERT_EQ(pool.post([&] {
      gate.pass();
      ++done;
    }),
              Posted::Queued);
  ASSERT_TRUE(waitFor([&] { return gate.inside() == 3; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(gate.inside(), 3) << "more tasks ran at once than the pool has threads";
  gate.open();
  EXPECT_TRUE(waitFor([&] { return done.load() == 5; }));
}

TEST(WorkerPool, AKeyRunsAtMostItsShareAndAnotherKeyPassesItsQueue) {
  Gate slow;
  std::atomic<bool> other_ran{false};
  WorkerPool pool(PoolLimits{.threads = 3, .perKeyRunning = 2});
  for (int i = 0; i < 4; ++i) ASSERT_EQ(pool.post("a", [&] { slow.pass(); }), Posted::Queued);
  ASSERT_TRUE(waitFor([&] { return slow.inside() == 2; }));
  ASSERT_EQ(pool.post("b", [&] { other_ran = true; }), Posted::Queued);
  // Key a's two running tasks are still held and two more of its tasks wait: b runs anyway.
  EXPECT_TRUE(waitFor([&] { return other_ran.load(); }));
  EXPECT_EQ(slow.inside(), 2) << "key a ran more than perKeyRunning at once";
  slow.open();
}

TEST(WorkerPool, KeysTakeTurns) {
  Gate gate;
  Trace trace;
  WorkerPool pool(PoolLimits{.threads = 1});
  ASSERT_EQ(pool.post("gate", [&] { gate.pass(); }), Posted::Queued);
  ASSERT_TRUE(waitFor([&] { return gate.inside() == 1; }));
  for (const char* what : {"a1", "a2", "a3", "b1", "b2"})
    ASSERT_EQ(pool.post(std::string(1, what[0]), [&trace, what] { trace.add(what); }),
              Posted::Queued);
  gate.open();
  ASSERT_TRUE(waitFor([&] { return trace.seen().size() == 5; }));
  EXPECT_EQ(trace.seen(), (std::vector<std::string>{"a1", "b1", "a2", "b2", "a3"}));
}

TEST(WorkerPool, OneKeyAloneRunsInTheOrderPosted) {
  Trace trace;
  WorkerPool pool(PoolLimits{.threads = 1});
  for (int i = 0; i < 20; ++i)
    ASSERT_EQ(pool.post([&trace, i] { trace.add(std::to_string(i)); }), Posted::Queued);
  pool.stop();
  std::vector<std::string> expected;
  for (int i = 0; i < 20; ++i) expected.push_back(std::to_string(i));
  EXPECT_EQ(trace.seen(), expected);
}

TEST(WorkerPool, FullQueuesRefuse) {
  // No threads: every task posted waits.
  WorkerPool pool(PoolLimits{.threads = 0, .perKeyQueue = 2, .totalQueue = 3});
  EXPECT_EQ(pool.post("a", [] {}), Posted::Queued);
  EXPECT_EQ(pool.post("a", [] {}), Posted::Queued);
  EXPECT_EQ(pool.post("a", [] {}), Posted::KeyQueueFull);
  EXPECT_EQ(pool.post("b", [] {}), Posted::Queued);
  EXPECT_EQ(pool.post("c", [] {}), Posted::PoolFull);
  EXPECT_EQ(pool.post("b", [] {}), Posted::PoolFull);
}

TEST(WorkerPool, ARefusedKeyCanPostOnceItsQueueHasRoom) {
  Gate gate;
  WorkerPool pool(PoolLimits{.threads = 1, .perKeyRunning = 1, .perKeyQueue = 1});
  ASSERT_EQ(pool.post("a", [&] { gate.pass(); }), Posted::Queued);
  ASSERT_TRUE(waitFor([&] { return gate.inside() == 1; }));
  EXPECT_EQ(pool.post("a", [] {}), Posted::Queued);
  EXPECT_EQ(pool.post("a", [] {}), Posted::KeyQueueFull);
  gate.open();
  pool.stop();
  EXPECT_EQ(pool.post("a", [] {}), Posted::NotRunning);
}

TEST(WorkerPool, PerKeyRunningZeroReadsOne) {
  Gate gate;
  WorkerPool pool(PoolLimits{.threads = 2, .perKeyRunning = 0});
  EXPECT_EQ(pool.limits().perKeyRunning, 1u);
  for (int i = 0; i < 2; ++i) ASSERT_EQ(pool.post("a", [&] { gate.pass(); }), Posted::Queued);
  ASSERT_TRUE(waitFor([&] { return gate.inside() == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(gate.inside(), 1);
  gate.open();
}

TEST(WorkerPool, StopFinishesWhatWaitsThenRefuses) {
  Gate gate;
  std::atomic<int> done{0};
  WorkerPool pool(PoolLimits{.threads = 1});
  ASSERT_EQ(pool.post([&] { gate.pass(); }), Posted::Queued);
  for (int i = 0; i < 5; ++i) ASSERT_EQ(pool.post([&] { ++done; }), Posted::Queued);
  ASSERT_TRUE(waitFor([&] { return gate.inside() == 1; }));
  auto stopped = std::async(std::launch::async, [&] { return pool.stop(); });
  ASSERT_TRUE(waitFor([&] { return pool.post([] {}) == Posted::NotRunning; }));
  gate.open();
  EXPECT_TRUE(stopped.get().empty());
  EXPECT_EQ(done.load(), 5) << "stop() returned before the waiting tasks ran";
}

TEST(WorkerPool, TheDestructorFinishesWhatWaits) {
  std::atomic<int> done{0};
  {
    WorkerPool pool(PoolLimits{.threads = 2, .perKeyRunning = 1});
    for (int i = 0; i < 10; ++i)
      ASSERT_EQ(pool.post(i % 2 ? "a" : "b", [&] { ++done; }), Posted::Queued);
  }
  EXPECT_EQ(done.load(), 10);
}

namespace {
// A task whose payload a caller finds again in stop(Drop)'s answer (as runtime's builds do).
struct Job {
  int number;
  std::atomic<int>* ran;
  void operator()() const { ++*ran; }
};
}  // namespace

TEST(WorkerPool, StopDropHandsBackWhatNeverStarted) {
  Gate gate;
  std::atomic<bool> held_ended{false};
  std::atomic<int> ran{0};
  WorkerPool pool(PoolLimits{.threads = 1});
  ASSERT_EQ(pool.post([&] {
    gate.pass();
    held_ended = true;
  }),
            Posted::Queued);
  ASSERT_TRUE(waitFor([&] { return gate.inside() == 1; }));
  for (int i = 1; i <= 3; ++i) ASSERT_EQ(pool.post(Job{i, &ran}), Posted::Queued);
  auto stopped =
      std::async(std::launch::async, [&] { return pool.stop(WorkerPool::Leftovers::Drop); });
  ASSERT_TRUE(waitFor([&] { return pool.post([] {}) == Posted::NotRunning; }));
  gate.open();
  std::vector<WorkerPool::Task> dropped = stopped.get();
  EXPECT_TRUE(held_ended.load()) << "stop() returned before the running task ended";
  EXPECT_EQ(ran.load(), 0) << "a dropped task ran";
  // The empty probes posted before stop() began wait behind the jobs and are dropped too.
  ASSERT_GE(dropped.size(), 3u);
  for (int i = 1; i <= 3; ++i) {
    const Job* job = dropped[i - 1].target<Job>();
    ASSERT_NE(job, nullptr);
    EXPECT_EQ(job->number, i);
  }
  for (size_t i = 3; i < dropped.size(); ++i) EXPECT_EQ(dropped[i].target<Job>(), nullptr);
  EXPECT_TRUE(pool.stop(WorkerPool::Leftovers::Drop).empty()) << "a second stop() is a no-op";
}

TEST(WorkerPool, StartLaterRefusesUntilStartedAndStartsAgainAfterStop) {
  std::atomic<int> done{0};
  WorkerPool pool(PoolLimits{}, WorkerPool::Start::Later);
  EXPECT_EQ(pool.post([&] { ++done; }), Posted::NotRunning);
  pool.start(2);
  EXPECT_EQ(pool.limits().threads, 2u);
  EXPECT_EQ(pool.post([&] { ++done; }), Posted::Queued);
  pool.stop();
  EXPECT_EQ(done.load(), 1);
  EXPECT_EQ(pool.post([&] { ++done; }), Posted::NotRunning);
  pool.start();
  EXPECT_EQ(pool.post([&] { ++done; }), Posted::Queued);
  pool.stop();
  EXPECT_EQ(done.load(), 2);
}

TEST(WorkerPool, StartOnFirstPostRunsTheFirstTaskAndNoneAfterStop) {
  std::atomic<int> done{0};
  WorkerPool pool(PoolLimits{.threads = 2}, WorkerPool::Start::OnFirstPost);
  EXPECT_EQ(pool.post([&] { ++done; }), Posted::Queued);
  EXPECT_TRUE(waitFor([&] { return done.load() == 1; }));
  EXPECT_TRUE(pool.stop(WorkerPool::Leftovers::Drop).empty());
  EXPECT_EQ(pool.post([&] { ++done; }), Posted::NotRunning) << "a stopped pool started again";
}

TEST(WorkerPool, StopBeforeTheFirstPostLeavesItStopped) {
  WorkerPool pool(PoolLimits{.threads = 2}, WorkerPool::Start::OnFirstPost);
  EXPECT_TRUE(pool.stop().empty());
  EXPECT_EQ(pool.post([] {}), Posted::NotRunning);
}
