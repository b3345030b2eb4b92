#include "one_off_command.hpp"

#include <cstdio>

#include "release_build.hpp"

namespace berth::runtime {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kCutMark = "(earlier output cut)\n";

// A cut output may begin inside a UTF-8 sequence: those bytes go, so the answer's text starts
// with a whole character. A cut at the start, at most one sequence's 3 continuation bytes:
// common/utf8.hpp's utf8CutPoint cuts at the end, so it stays here.
void dropBrokenStart(std::string& log) {
  if (!log.starts_with(kCutMark)) return;
  std::size_t at = kCutMark.size();
  std::size_t end = at;
  while (end < log.size() && end - at < 3 && (static_cast<unsigned char>(log[end]) & 0xC0) == 0x80)
    ++end;
  log.erase(at, end - at);
}

std::string seconds(std::int64_t ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", static_cast<double>(ms) / 1000.0);
  return text;
}

}  // namespace

std::optional<CommandSlots::Slot> CommandSlots::take() {
  int now = taken_.load();
  while (now < limit_)
    if (taken_.compare_exchange_weak(now, now + 1)) return Slot(this);
  return std::nullopt;
}

std::map<std::string, std::string> oneOffEnvironment(const OneOffCommand& command) {
  AppEnvironmentInput input = command.environment;
  input.release_dir = command.release_dir;
  input.home = command.home;
  auto env = appEnvironment(input);
  env.erase("PORT");  // it serves nothing
  return env;
}

OneOffOutcome runOneOffCommand(const OneOffCommand& command) {
  BuildLimits limits;
  limits.timeout = command.timeout;
  limits.max_log_bytes = berth::runtime_commands::kOutputBytes;
  limits.cancel = command.cancel;
  CommandIo io;
  io.input = command.input;  // nullopt: /dev/null
  const SandboxMounts mounts{command.release_dir, false, command.home, command.read_only_paths};
  const auto began = Clock::now();
  CommandRun run = runBuildCommand(command.argv, mounts, oneOffEnvironment(command), command.run_as,
                                   limits, command.sandbox, io);
  OneOffOutcome out;
  out.ran.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began).count();
  if (!run.exit) {
    out.start_error = run.error;
    return out;
  }
  if (run.exit->exited)
    out.ran.exit_code = run.exit->code;
  else
    out.ran.signal = run.exit->signal;
  out.ran.timed_out = run.timed_out;
  out.cancelled = run.cancelled;
  dropBrokenStart(run.log);
  out.ran.output = std::move(run.log);
  return out;
}

std::string commandLogLine(const std::string& program, const OneOffOutcome& outcome,
                           std::chrono::seconds timeout) {
  const std::string shown =
      "command " + (program.size() > 200 ? program.substr(0, 200) + "..." : program);
  if (outcome.start_error) return shown + " could not start: " + *outcome.start_error;
  if (outcome.cancelled) return shown + " was stopped because berthd is stopping";
  if (outcome.ran.timed_out)
    return shown + " took longer than " + std::to_string(timeout.count()) + " s and was stopped";
  const std::string took = " in " + seconds(outcome.ran.duration_ms) + " s";
  if (outcome.ran.exit_code)
    return shown + " exited with code " + std::to_string(*outcome.ran.exit_code) + took;
  return shown + " was killed by signal " + std::to_string(outcome.ran.signal.value_or(0)) + took;
}

}  // namespace berth::runtime
