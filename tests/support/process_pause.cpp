#include "support/process_pause.hpp"

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

namespace berth::testing {

namespace fs = std::filesystem;

bool everyThreadStopped(pid_t pid) {
  std::error_code ec;
  fs::directory_iterator tasks("/proc/" + std::to_string(pid) + "/task", ec);
  if (ec) return false;
  bool any = false;
  for (const auto& task : tasks) {
    std::ifstream in(task.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // "<tid> (<comm>) <state> ...": the name may hold spaces and parentheses.
    auto close = stat.rfind(')');
    if (close == std::string::npos || close + 2 >= stat.size()) continue;  // gone meanwhile
    char state = stat[close + 2];
    if (state != 'T' && state != 't') return false;
    any = true;
  }
  return any;
}

ProcessPause::ProcessPause(pid_t pid) : pid_(pid) {
  if (::kill(pid_, SIGSTOP) != 0)
    throw std::runtime_error("cannot stop process " + std::to_string(pid_));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!everyThreadStopped(pid_)) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid_, SIGCONT);
      throw std::runtime_error("process " + std::to_string(pid_) + " did not stop in 10 s");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

ProcessPause::~ProcessPause() {
  ::kill(pid_, SIGCONT);
}

}  // namespace berth::testing
