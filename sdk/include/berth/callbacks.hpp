// SPDX-License-Identifier: MIT
/** @file
 *  The plugin's callbacks as the core sees them: each registration stores its std::function in
 *  an entry owned by the plugin instance, and the core calls a C trampoline with a `user`
 *  pointer to that entry. The trampolines are the exception barrier: nothing thrown in a
 *  plugin ever crosses into the core.
 *
 *  Implementation detail of the SDK; plugin code uses berth::Registrar.
 */
#ifndef BERTH_CALLBACKS_HPP
#define BERTH_CALLBACKS_HPP

#include <berth/db.hpp>
#include <berth/error.hpp>
#include <berth/host_ref.hpp>
#include <berth/http.hpp>
#include <berth/installer.hpp>
#include <berth/jobs.hpp>

#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth {

/** A route handler: any callable taking (Request, Responder), by value (the usual form) or by
 *  reference (`const Request&, Responder&`). Each call gets its own copies, so moving the
 *  Responder away (into an Exchange) is fine either way.
 *  THREADING: called concurrently on core threads. */
using Handler = std::function<void(Request& request, Responder& responder)>;

/** One run of a job. THREADING: on the core's job pool; never overlaps itself. */
using JobFn = std::function<void(JobContext& job)>;

/** A hook on an event: returns to accept, throws berth::Error to refuse (when the event asks,
 *  e.g. "project.deleting"). THREADING: called concurrently. */
using HookFn = std::function<void(const nlohmann::json& payload)>;
/** The same, given the payload's JSON text unparsed (Registrar::hookText): for events so frequent
 *  that a plugin reads them with a parser of their own ("edge.access",
 *  berth/util/access_line.hpp). */
using HookTextFn = std::function<void(std::string_view payload)>;
/** A hook that answers (Registrar::hookAnswer): its JSON answer reaches the plugin that fired
 *  the event (Services::fireForAnswers); null answers nothing. Throws berth::Error to refuse.
 *  THREADING: called concurrently. */
using HookAnswerFn = std::function<nlohmann::json(const nlohmann::json& payload)>;

/** A service: method name and JSON request in, JSON answer out; throws berth::Error to refuse.
 *  THREADING: called concurrently. */
using ServiceFn =
    std::function<nlohmann::json(std::string_view method, const nlohmann::json& request)>;

/** One method of a service offered as a method table (Registrar::service overload). */
using ServiceMethod = std::function<nlohmann::json(const nlohmann::json& request)>;
using ServiceMethods = std::map<std::string, ServiceMethod, std::less<>>;

namespace detail {

struct RouteEntry {
  HostRef host;
  std::string label;  // "GET /hello", for log lines
  std::string path;
  std::vector<std::string> field_names;
  std::vector<berth_field> fields;  // views into field_names
  Handler handler;
};

struct JobEntry {
  HostRef host;
  std::string name;
  JobFn fn;
};

struct HookEntry {
  HostRef host;
  std::string event;
  HookFn fn;
  HookTextFn text_fn;      // instead of fn
  HookAnswerFn answer_fn;  // instead of fn
};

struct ServiceEntry {
  HostRef host;
  std::string name;
  ServiceFn fn;
};

struct AppInstallerEntry {
  HostRef host;
  std::shared_ptr<Installer> installer;
  InstallerInfo info;  // the views handed to the core point into it
  std::string requires_json;
  std::vector<berth_field> fields;
};

/** OWNERSHIP: belongs to the plugin instance, which the core destroys only after stop(), when
 *  no callback can run any more. std::deque keeps entries in place as it grows, so the `user`
 *  pointers the core holds stay valid. */
struct CallbackStore {
  std::deque<RouteEntry> routes;
  std::deque<JobEntry> jobs;
  std::deque<HookEntry> hooks;
  std::deque<ServiceEntry> services;
  std::deque<AppInstallerEntry> installers;
};

/** Answers without the SDK's own machinery, for when even that failed. */
inline void answerRawNoThrow(const berth_host_api* api, berth_responder* responder, int32_t status,
                             std::string_view message) noexcept {
  berth_response response{};
  response.struct_size = sizeof(berth_response);
  response.kind = BERTH_RESPONSE_ERROR;
  response.status = status;
  response.body = toStr(message);
  response.error_extra_json = absentStr();
  api->respond(responder, &response);
}

inline std::string describe(const DbError& error) {
  return error.message() + " (SQLSTATE " + error.sqlstate() + ")";
}

inline void routeTrampoline(void* user, const berth_request* request,
                            berth_responder* responder_handle) noexcept {
  auto* entry = static_cast<RouteEntry*>(user);
  const HostRef& host = entry->host;
  std::optional<Responder> responder;
  try {
    responder.emplace(host, request, responder_handle);
  } catch (...) {
    answerRawNoThrow(host.api, responder_handle, 500, "internal error");
    return;
  }
  try {
    // Read before the handler runs: once anyone answered, the request is gone.
    std::string request_id = Request(request, host.api).id();
    try {
      Request handed_request(request, host.api);
      Responder handed_responder = *responder;  // the handler may move it; ours stays
      entry->handler(handed_request, handed_responder);
    } catch (const DbError& error) {
      logNoThrow(host, BERTH_LOG_ERROR, request_id, entry->label + ": " + describe(error));
      responder->error(500, "internal error");
    } catch (const Error& error) {
      if (responder->answered())
        logNoThrow(host, BERTH_LOG_WARN, request_id,
                   entry->label + " threw after answering: " + error.message());
      responder->error(error);
    } catch (const std::exception& error) {
      logNoThrow(host, BERTH_LOG_ERROR, request_id, entry->label + " failed: " + error.what());
      responder->error(500, "internal error");
    } catch (...) {
      logNoThrow(host, BERTH_LOG_ERROR, request_id, entry->label + " failed: unknown exception");
      responder->error(500, "internal error");
    }
  } catch (...) {
    ResponderAccess::state(*responder)->answerInternalErrorNoThrow();
  }
}

inline void jobTrampoline(void* user, berth_job_ctx* context) noexcept {
  auto* entry = static_cast<JobEntry*>(user);
  try {
    try {
      JobContext job(entry->host, context, entry->name);
      entry->fn(job);
    } catch (const DbError& error) {
      logNoThrow(entry->host, BERTH_LOG_ERROR, {},
                 "job " + entry->name + " failed: " + describe(error));
    } catch (const std::exception& error) {
      logNoThrow(entry->host, BERTH_LOG_ERROR, {},
                 "job " + entry->name + " failed: " + error.what());
    }
  } catch (...) {
    logNoThrow(entry->host, BERTH_LOG_ERROR, {}, "a job failed: unknown exception");
  }
}

/** Runs fn, turning what it throws into the {"status", "error"} answer of hooks, services and
 *  installers. `what` and `name` make the log line ("service", "storage.blobs.v1"). */
template <class F>
int32_t answerGuarded(const HostRef& host, berth_buffer* out, const char* what,
                      const std::string& name, F&& fn) noexcept {
  try {
    try {
      fn();
      return BERTH_OK;
    } catch (const DbError& error) {
      logNoThrow(host, BERTH_LOG_ERROR, {},
                 std::string(what) + " " + name + ": " + describe(error));
      append(host.api, out, errorAnswer(500, "internal error"));
    } catch (const Error& error) {
      append(host.api, out, errorAnswer(error.status(), error.message(), error.extra()));
    } catch (const std::exception& error) {
      logNoThrow(host, BERTH_LOG_ERROR, {},
                 std::string(what) + " " + name + " failed: " + error.what());
      append(host.api, out, errorAnswer(500, "internal error"));
    }
  } catch (...) {
    logNoThrow(host, BERTH_LOG_ERROR, {}, "a hook, service or installer failed");
    append(host.api, out, R"({"status":500,"error":"internal error"})");
  }
  return BERTH_ERR;
}

/** A JSON argument from the core; empty text reads as an empty object. */
inline nlohmann::json parseArgument(berth_str text) {
  if (toView(text).empty()) return nlohmann::json::object();
  nlohmann::json parsed = nlohmann::json::parse(toView(text), nullptr, false);
  if (parsed.is_discarded()) throw Error::badRequest("the request is not valid JSON");
  return parsed;
}

inline int32_t hookTrampoline(void* user, berth_str /*event*/, berth_str payload,
                              berth_buffer* out) noexcept {
  auto* entry = static_cast<HookEntry*>(user);
  return answerGuarded(entry->host, out, "hook on", entry->event, [&] {
    if (entry->text_fn) {
      entry->text_fn(toView(payload));
    } else if (entry->answer_fn) {
      // Accepted with an answer: the core hands it to the plugin that fired the event.
      nlohmann::json answer = entry->answer_fn(parseArgument(payload));
      if (!answer.is_null()) append(entry->host.api, out, dumpJson(answer));
    } else {
      entry->fn(parseArgument(payload));
    }
  });
}

inline int32_t serviceTrampoline(void* user, berth_str method, berth_str request,
                                 berth_buffer* out) noexcept {
  auto* entry = static_cast<ServiceEntry*>(user);
  return answerGuarded(entry->host, out, "service", entry->name, [&] {
    nlohmann::json answer = entry->fn(toView(method), parseArgument(request));
    append(entry->host.api, out, dumpJson(answer));
  });
}

inline int32_t appInstallerTrampoline(void* user, berth_install_ctx* ctx, berth_str request,
                                      berth_buffer* out) noexcept {
  auto* entry = static_cast<AppInstallerEntry*>(user);
  return answerGuarded(entry->host, out, "installer", entry->info.slug, [&] {
    InstallContext context(entry->host.api, ctx);
    nlohmann::json answer = entry->installer->install(context, parseArgument(request));
    append(entry->host.api, out, dumpJson(answer));
  });
}

}  // namespace detail
}  // namespace berth

#endif  // BERTH_CALLBACKS_HPP
