// SPDX-License-Identifier: MIT
/** @file
 *  berth::Logger: log lines written through the core, which names them "plugin.<id>" and
 *  owns the one logging registry of the process (a plugin never touches spdlog).
 */
#ifndef BERTH_LOGGER_HPP
#define BERTH_LOGGER_HPP

#include <berth/host_ref.hpp>
#include <berth/http.hpp>

#include <string>
#include <string_view>
#include <utility>

namespace berth {

enum class LogLevel : uint32_t {
  Debug = BERTH_LOG_DEBUG,
  Info = BERTH_LOG_INFO,
  Warn = BERTH_LOG_WARN,
  Error = BERTH_LOG_ERROR
};

/** Writes log lines, optionally tagged with a request id and a project name.
 *  THREADING: safe to use from any thread. A default-constructed Logger discards lines. */
class Logger {
 public:
  Logger() = default;
  explicit Logger(HostRef host, std::string project = {})
      : host_(host), project_(std::move(project)) {}

  /** A copy whose lines name this project. */
  Logger withProject(std::string project) const { return Logger(host_, std::move(project)); }

  void debug(std::string_view message) const { write(LogLevel::Debug, {}, message); }
  void info(std::string_view message) const { write(LogLevel::Info, {}, message); }
  void warn(std::string_view message) const { write(LogLevel::Warn, {}, message); }
  void error(std::string_view message) const { write(LogLevel::Error, {}, message); }

  /** Lines tagged with the request's id, so they join the core's line for that request.
   *  The request must not have been answered yet (its LIFETIME). */
  void debug(const Request& request, std::string_view message) const {
    write(LogLevel::Debug, request.id(), message);
  }
  void info(const Request& request, std::string_view message) const {
    write(LogLevel::Info, request.id(), message);
  }
  void warn(const Request& request, std::string_view message) const {
    write(LogLevel::Warn, request.id(), message);
  }
  void error(const Request& request, std::string_view message) const {
    write(LogLevel::Error, request.id(), message);
  }

  /** The general form: an empty request id is absent. */
  void write(LogLevel level, std::string_view request_id, std::string_view message) const {
    if (!host_.bound()) return;
    host_.api->log(host_.host, static_cast<uint32_t>(level),
                   request_id.empty() ? detail::absentStr() : detail::toStr(request_id),
                   project_.empty() ? detail::absentStr() : detail::toStr(project_),
                   detail::toStr(message));
  }

 private:
  HostRef host_;
  std::string project_;
};

}  // namespace berth

#endif  // BERTH_LOGGER_HPP
