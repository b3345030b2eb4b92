// One spdlog registry, in the core. Every line can say which request and project it is about.
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

#include "config/settings.hpp"

namespace berth::core {

// Sets level, format (text or JSON lines) and sink for every logger, present and future.
void initLogging(const LogSettings& settings);

// The logger of that name ("core", "http", "edge", "db", "plugin.<id>"), made on first use.
std::shared_ptr<spdlog::logger> getLogger(const std::string& name);

// One line with its context. request_id and project may be empty.
void logLine(spdlog::logger& logger, spdlog::level::level_enum level, std::string_view request_id,
             std::string_view project, std::string_view message);

}  // namespace berth::core
