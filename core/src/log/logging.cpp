// Every logger writes through one switchable sink, so initLogging can change the destination
// and the format of loggers made before it (and by plugins) without touching each of them.
#include "log/logging.hpp"

#include <time.h>

#include <chrono>
#include <mutex>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/dist_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <nlohmann/json.hpp>

namespace berth::core {
namespace {

enum class LineFormat { kText, kJson };

// What logLine adds to the line it is writing. spdlog's loggers here are synchronous, so the
// formatter runs on the thread that logs and a thread-local pointer reaches it safely.
struct LineContext {
  std::string_view request_id;
  std::string_view project;
};
thread_local const LineContext* current_context = nullptr;

class ScopedLineContext {
 public:
  explicit ScopedLineContext(const LineContext& context) : previous_(current_context) {
    current_context = &context;
  }
  ~ScopedLineContext() { current_context = previous_; }
  ScopedLineContext(const ScopedLineContext&) = delete;
  ScopedLineContext& operator=(const ScopedLineContext&) = delete;

 private:
  const LineContext* previous_;
};

std::string_view levelName(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
      return "trace";
    case spdlog::level::debug:
      return "debug";
    case spdlog::level::info:
      return "info";
    case spdlog::level::warn:
      return "warn";
    case spdlog::level::err:
      return "error";
    case spdlog::level::critical:
      return "crit";
    default:
      return "off";
  }
}

// 2026-11-21T22:57:21.123Z, written into `out` (24 characters) without a formatting library:
// every request logs a line, and this was most of the cost of one.
void appendUtcTimestamp(spdlog::memory_buf_t& out, spdlog::log_clock::time_point time) {
  const auto since_epoch = time.time_since_epoch();
  const auto seconds = std::chrono::floor<std::chrono::seconds>(since_epoch);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch - seconds);
  const time_t whole_seconds = static_cast<time_t>(seconds.count());
  tm utc{};
  gmtime_r(&whole_seconds, &utc);
  char text[24];
  auto digits = [&text](int at, int value, int width) {
    for (int i = width - 1; i >= 0; --i, value /= 10)
      text[at + i] = static_cast<char>('0' + value % 10);
  };
  digits(0, utc.tm_year + 1900, 4);
  text[4] = '-';
  digits(5, utc.tm_mon + 1, 2);
  text[7] = '-';
  digits(8, utc.tm_mday, 2);
  text[10] = 'T';
  digits(11, utc.tm_hour, 2);
  text[13] = ':';
  digits(14, utc.tm_min, 2);
  text[16] = ':';
  digits(17, utc.tm_sec, 2);
  text[19] = '.';
  digits(20, static_cast<int>(millis.count()), 3);
  text[23] = 'Z';
  out.append(text, text + sizeof text);
}

std::string utcTimestamp(spdlog::log_clock::time_point time) {
  spdlog::memory_buf_t out;
  appendUtcTimestamp(out, time);
  return std::string(out.data(), out.size());
}

class BerthFormatter : public spdlog::formatter {
 public:
  explicit BerthFormatter(LineFormat format) : format_(format) {}

  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const LineContext context = current_context ? *current_context : LineContext{};
    const std::string_view logger(msg.logger_name.data(), msg.logger_name.size());
    const std::string_view message(msg.payload.data(), msg.payload.size());
    if (format_ == LineFormat::kJson) {
      const std::string line = jsonLine(msg, context, logger, message);
      dest.append(line.data(), line.data() + line.size());
    } else {
      appendTextLine(dest, msg, context, logger, message);
    }
    dest.push_back('\n');
  }

  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<BerthFormatter>(format_);
  }

 private:
  static void appendTextLine(spdlog::memory_buf_t& out, const spdlog::details::log_msg& msg,
                             const LineContext& context, std::string_view logger,
                             std::string_view message) {
    auto append = [&out](std::string_view text) {
      out.append(text.data(), text.data() + text.size());
    };
    appendUtcTimestamp(out, msg.time);
    out.push_back(' ');
    const std::string_view level = levelName(msg.level);
    append(level);
    for (size_t i = level.size(); i < 5; ++i) out.push_back(' ');
    out.push_back(' ');
    append(logger);
    out.push_back(' ');
    if (!context.request_id.empty() || !context.project.empty()) {
      out.push_back('[');
      if (!context.request_id.empty()) {
        append("req=");
        append(context.request_id);
      }
      if (!context.request_id.empty() && !context.project.empty()) out.push_back(' ');
      if (!context.project.empty()) {
        append("project=");
        append(context.project);
      }
      append("] ");
    }
    append(message);
  }

  static std::string jsonLine(const spdlog::details::log_msg& msg, const LineContext& context,
                              std::string_view logger, std::string_view message) {
    nlohmann::ordered_json line;
    line["ts"] = utcTimestamp(msg.time);
    line["level"] = levelName(msg.level);
    line["logger"] = logger;
    if (!context.request_id.empty()) line["request"] = context.request_id;
    if (!context.project.empty()) line["project"] = context.project;
    line["msg"] = message;
    // A message with broken UTF-8 (a client's bytes, say) must not make the log line throw.
    return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  }

  LineFormat format_;
};

// The state every logger shares. Made on first use, so loggers made during static
// initialisation elsewhere find it ready.
struct LoggingState {
  std::mutex mutex;  // serialises initLogging against getLogger's create-and-register
  std::shared_ptr<spdlog::sinks::dist_sink_mt> sink =
      std::make_shared<spdlog::sinks::dist_sink_mt>();
  spdlog::level::level_enum level = spdlog::level::info;

  LoggingState() { sink->set_sinks({destination("", LineFormat::kText)}); }

  static spdlog::sink_ptr destination(const std::string& file, LineFormat format) {
    spdlog::sink_ptr out;
    if (file.empty()) {
      out = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    } else {
      out = std::make_shared<spdlog::sinks::basic_file_sink_mt>(file, /*truncate=*/false);
    }
    out->set_formatter(std::make_unique<BerthFormatter>(format));
    return out;
  }

  void adopt(spdlog::logger& logger) const {
    // Our loggers already hold the shared sink; leave their vector alone so that calling
    // initLogging again while they log is safe (dist_sink swaps its target under a lock).
    if (logger.sinks().size() != 1 || logger.sinks().front() != sink) logger.sinks() = {sink};
    logger.set_level(level);
    // One write per line: lines survive a crash and reach a tailing reader at once.
    logger.flush_on(spdlog::level::trace);
  }
};

LoggingState& state() {
  static LoggingState instance;
  return instance;
}

spdlog::level::level_enum parseLevel(const std::string& name) {
  if (name == "debug") return spdlog::level::debug;
  if (name == "warn") return spdlog::level::warn;
  if (name == "error") return spdlog::level::err;
  if (name == "info") return spdlog::level::info;
  throw ConfigError("log.level: expected one of debug, info, warn, error, got \"" + name + "\"");
}

LineFormat parseFormat(const std::string& name) {
  if (name == "text") return LineFormat::kText;
  if (name == "json") return LineFormat::kJson;
  throw ConfigError("log.format: expected one of text, json, got \"" + name + "\"");
}

}  // namespace

void initLogging(const LogSettings& settings) {
  LoggingState& shared = state();
  const spdlog::level::level_enum level = parseLevel(settings.level);
  const LineFormat format = parseFormat(settings.format);
  spdlog::sink_ptr destination;
  try {
    destination = LoggingState::destination(settings.file, format);
  } catch (const spdlog::spdlog_ex& e) {
    throw ConfigError("log.file: cannot open " + settings.file + ": " + e.what());
  }

  std::lock_guard lock(shared.mutex);
  shared.level = level;
  shared.sink->set_sinks({destination});
  // Loggers made before this call, ours and any made through spdlog directly (its default
  // logger included), all move to the shared sink. Moving a foreign logger is not safe while
  // it logs; that happens only on the first call, at start-up.
  spdlog::apply_all(
      [&shared](const std::shared_ptr<spdlog::logger>& logger) { shared.adopt(*logger); });
}

std::shared_ptr<spdlog::logger> getLogger(const std::string& name) {
  if (auto existing = spdlog::get(name)) return existing;
  LoggingState& shared = state();
  std::lock_guard lock(shared.mutex);
  // Another thread may have made it while this one waited for the lock.
  if (auto existing = spdlog::get(name)) return existing;
  auto logger = std::make_shared<spdlog::logger>(name, shared.sink);
  shared.adopt(*logger);
  try {
    spdlog::register_logger(logger);
  } catch (const spdlog::spdlog_ex&) {
    // Registered through spdlog directly, bypassing this lock: use that one.
    return spdlog::get(name);
  }
  return logger;
}

void logLine(spdlog::logger& logger, spdlog::level::level_enum level, std::string_view request_id,
             std::string_view project, std::string_view message) {
  if (!logger.should_log(level)) return;
  const LineContext context{request_id, project};
  const ScopedLineContext scope(context);
  logger.log(level, spdlog::string_view_t(message.data(), message.size()));
}

}  // namespace berth::core
