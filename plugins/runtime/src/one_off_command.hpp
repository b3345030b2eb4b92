// runtime.commands.v1's command: one run of argv in a release "as the app" (the release
// folder read-only as its working folder, the project's uid and writable folder, the app's
// environment without PORT, the app's sandbox), through runBuildCommand; and the bound on how
// many run at once.
#pragma once
#include <berth/services/runtime_commands.hpp>

#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app_environment.hpp"
#include "child_process.hpp"
#include "sandbox.hpp"

namespace berth::runtime {

struct OneOffCommand {
  std::vector<std::string> argv;    // executed directly: no shell, nothing expanded
  std::string release_dir;          // the working folder, read-only
  std::string home;                 // the project's writable folder: HOME, TMPDIR its tmp/
  AppEnvironmentInput environment;  // as for the app; release_dir and home are set from above
  std::vector<std::string> read_only_paths;  // further folders the app is shown read-only
  std::optional<RunAs> run_as;               // the project's uid (required when root)
  std::optional<SandboxOptions> sandbox;     // the app's; nullopt: unsandboxed (unsafe mode)
  std::chrono::seconds timeout{berth::runtime_commands::kDefaultTimeoutSeconds};
  std::optional<std::string> input;           // its stdin; nullopt: empty
  const std::atomic<bool>* cancel = nullptr;  // berthd is stopping
};

struct OneOffOutcome {
  berth::runtime_commands::Ran ran;
  bool cancelled = false;                  // stopped because berthd is stopping
  std::optional<std::string> start_error;  // "cannot start <program>: <why>": it never ran
};

// The environment the command gets: the app's (appEnvironment) without PORT.
std::map<std::string, std::string> oneOffEnvironment(const OneOffCommand& command);

// Runs it to its end (or its timeout) on the calling thread.
OneOffOutcome runOneOffCommand(const OneOffCommand& command);

// The project's platform log line: "command <program> exited with code <n> in <t> s", "...
// was killed by signal <n> in <t> s", "command <program> took longer than <t> s and was
// stopped", "command <program> was stopped because berthd is stopping", "command <program>
// could not start: <why>". The program is cut at 200 bytes.
std::string commandLogLine(const std::string& program, const OneOffOutcome& outcome,
                           std::chrono::seconds timeout);

// At most `limit` holders at once; take() never waits.
class CommandSlots {
 public:
  explicit CommandSlots(int limit) : limit_(limit) {}

  class Slot {
   public:
    explicit Slot(CommandSlots* owner) : owner_(owner) {}
    Slot(Slot&& other) noexcept : owner_(other.owner_) { other.owner_ = nullptr; }
    Slot& operator=(Slot&&) = delete;
    Slot(const Slot&) = delete;
    ~Slot() {
      if (owner_) owner_->taken_.fetch_sub(1);
    }

   private:
    CommandSlots* owner_;
  };

  // A slot, or nullopt when `limit` are taken.
  std::optional<Slot> take();
  int taken() const { return taken_.load(); }

 private:
  int limit_;
  std::atomic<int> taken_{0};
};

}  // namespace berth::runtime
