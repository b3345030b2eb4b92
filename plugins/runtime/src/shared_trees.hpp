// runtime.shared_trees.v1's trees: read-only folders built once per name on this node under
// <shared_dir>/<name> (an npm tree every n8n project runs from). A build copies a source folder
// into <shared_dir>/.building/<name>-<random>, runs a command there (runBuildCommand: in the
// sandbox, that folder read-write, HOME <shared_dir>/.home kept between builds, as an
// unprivileged uid that is no project's), takes the tree back (sealRelease: berthd's, no write
// bits for others, no link leading outside) and renames it into place in one step, so a tree
// is there whole or not at all. Builds run on threads of their own; callers never wait.
#pragma once
#include <berth/services/runtime_shared_trees.hpp>

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "child_process.hpp"
#include "sandbox.hpp"

namespace berth::runtime {

using SharedTree = berth::runtime_shared_trees::Tree;
using EnsureTree = berth::runtime_shared_trees::EnsureRequest;

struct SharedTreesSettings {
  std::string dir;                        // <shared_dir>, absolute
  std::optional<RunAs> build_as;          // who builds when berthd is root (never a project)
  std::optional<SandboxOptions> sandbox;  // nullopt: unsandboxed (unsafe_run_without_sandbox)
  std::function<void(const std::string&)> info;  // a line of berthd's log
};

// Whether `source` is a folder holding only files and folders (nothing followed): nullopt, or
// the refusal ("no folder at <source>", "<source> is not a folder", "<path> is a link; a shared
// tree's source may hold only files and folders", "<path> is a device file, fifo or socket;
// ...").
std::optional<std::string> sourceProblem(const std::string& source);

// Copies `source` (as sourceProblem allows) into the existing empty folder `into`: folders
// 0755, files 0644 (0755 with any execute bit). @throw std::runtime_error with sourceProblem's
// texts, or why a file could not be copied.
void copySource(const std::string& source, const std::string& into);

class SharedTrees {
 public:
  explicit SharedTrees(SharedTreesSettings settings) : settings_(std::move(settings)) {}
  ~SharedTrees() { stop(); }
  SharedTrees(const SharedTrees&) = delete;
  SharedTrees& operator=(const SharedTrees&) = delete;

  // Removes what an earlier berthd left in <dir>/.building (builds it did not finish).
  void sweep();
  // The tree as it is now, starting its build when it is neither ready nor building.
  // @throw berth::Error 400 (the source), 503 once stopping.
  SharedTree ensure(const EnsureTree& request);
  // nullopt: no such tree (none on disk, none building, none failed since start).
  std::optional<SharedTree> get(const std::string& name);
  // Whether a build is in progress.
  bool building();
  // Stops every build (each fails: "... was stopped because berthd is stopping") without
  // waiting; ensure is refused from now on.
  void cancel() { stopping_ = true; }
  // cancel(), and waits for the builds' threads.
  void stop();

  std::string treePath(const std::string& name) const { return settings_.dir + "/" + name; }
  std::string homePath() const { return settings_.dir + "/.home"; }
  std::string buildingPath() const { return settings_.dir + "/.building"; }

 private:
  struct Entry {
    SharedTree tree;
    bool log_cut = false;  // tree.log holds only the end of the output
    std::thread thread;    // the build's; joined before another build of the name, or at stop
  };

  void build(std::string name, EnsureTree request);
  // Under mutex_: the entry of a ready tree on disk (from its record), or nullptr.
  Entry* fromDisk(const std::string& name);
  SharedTree snapshot(const Entry& entry) const;
  void finish(const std::string& name, const std::optional<std::string>& error);
  void makeFolders() const;
  void info(const std::string& line) const {
    if (settings_.info) settings_.info(line);
  }

  SharedTreesSettings settings_;
  std::mutex mutex_;
  std::map<std::string, Entry> entries_;
  std::atomic<bool> stopping_{false};
};

}  // namespace berth::runtime
