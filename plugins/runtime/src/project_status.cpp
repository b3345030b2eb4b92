#include "project_status.hpp"

namespace berth::runtime {

nlohmann::json projectStatusJson(std::optional<AppState> process,
                                 const std::optional<LiveRelease>& live) {
  nlohmann::json status;
  status["state"] = process && *process == AppState::Running ? "running" : "stopped";
  if (live)
    status["live"] = {{"id", live->id},
                      {"created_at", live->created_at},
                      {"files", live->files},
                      {"bytes", live->bytes}};
  else
    status["live"] = nullptr;
  return status;
}

}  // namespace berth::runtime
