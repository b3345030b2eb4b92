// SPDX-License-Identifier: MIT
/** @file
 *  projects.view.v1: the hook through which other plugins fill in the fields of the projects
 *  plugin's Project (docs/openapi.yaml) that they own, so that the projects plugin names none
 *  of them and answers the same shape whichever of them is loaded. Header-only, no ABI: the
 *  types, their JSON written and read once, and both ends of the exchange.
 *
 *  The projects plugin fires the event once for each answer that shows projects (one project,
 *  or every project of a list) with {ids: [project id], cmds: {"<id>": cmd}}, through
 *  Services::fireForAnswers: `cmds` holds each project's stored start command (the Project's
 *  `cmd`, "" when none), so that a field derived from it needs no query (parseCmds; absent
 *  reads as none). A plugin that owns fields subscribes with Registrar::hookAnswer and answers
 *  {"<id>": {<field>: value, ...}} with the fields it owns; the projects plugin merges the
 *  answers in load order (a later answer's field wins) over the defaults below.
 *
 *  Fields (an answer's other fields, and ids not asked, are ignored):
 *  - files_count, files_bytes: integers of 0 or more (default 0; the storage plugin);
 *  - state: "running" or "stopped" (default "stopped"; the runtime plugin);
 *  - live: {id, created_at, files, bytes} of the live release, or null (default null; the
 *    runtime plugin);
 *  - runtime: the runtime the start command's first word names (Node, Static, Python, Ruby,
 *    Go, PHP, Java, Rust), or null (default null; the runtime plugin, whose rules they are).
 *
 *  A contributor that cannot answer (its database is down) logs why and answers nothing: a
 *  refusal stops the event, so the contributors after it would not be asked. An answer the
 *  projects plugin cannot read is left out whole, with a warning naming the field, and the
 *  other answers still count.
 */
#ifndef BERTH_SERVICES_PROJECTS_VIEW_HPP
#define BERTH_SERVICES_PROJECTS_VIEW_HPP

#include <berth/error.hpp>
#include <berth/services.hpp>
#include <berth/services/service_json.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth {
namespace projects_view {

inline constexpr std::string_view kEvent = "projects.view.v1";

/** The release a project serves (the Project's `live`). */
struct LiveRelease {
  std::string id;
  int64_t created_at = 0;  ///< Unix seconds
  uint64_t files = 0;      ///< files in the release
  uint64_t bytes = 0;      ///< their bytes

  bool operator==(const LiveRelease&) const = default;
};

inline nlohmann::json toJson(const LiveRelease& l) {
  return {{"id", l.id}, {"created_at", l.created_at}, {"files", l.files}, {"bytes", l.bytes}};
}

/** The fields of one Project that other plugins fill in; as constructed, what the Project shows
 *  when no plugin answered. */
struct Fields {
  int64_t files_count = 0;
  int64_t files_bytes = 0;
  bool running = false;             ///< state "running" (else "stopped")
  std::optional<LiveRelease> live;  ///< null before the first release
  /// the Project's `runtime`; null when none is named (or no plugin answers)
  std::optional<std::string> runtime = std::nullopt;

  bool operator==(const Fields&) const = default;
};

/** The `state` text of Fields. */
inline std::string_view stateText(const Fields& f) {
  return f.running ? "running" : "stopped";
}

/** By project id. */
using ProjectFields = std::map<std::string, Fields>;

/** Each project's stored start command, by project id. */
using Commands = std::map<std::string, std::string>;

// ---- the event's payload --------------------------------------------------------------------

inline nlohmann::json idsJson(const std::vector<std::string>& ids) {
  return {{"ids", ids}};
}

/** The payload the projects plugin fires: the ids and each one's start command. */
inline nlohmann::json payloadJson(const std::vector<std::string>& ids, const Commands& cmds) {
  return {{"ids", ids}, {"cmds", cmds}};
}

/** @throw Error 400 "ids is required and must be an array of strings". */
inline std::vector<std::string> parseIds(const nlohmann::json& payload) {
  return service_json::requiredTexts(payload, "ids",
                                     "ids is required and must be an array of strings");
}

/** The start commands of the payload; empty when it carries none.
 *  @throw Error 400 "cmds must be an object of strings". */
inline Commands parseCmds(const nlohmann::json& payload) {
  const nlohmann::json* given = service_json::requestField(payload, "cmds");
  if (given == nullptr) return {};
  if (!given->is_object()) throw Error::badRequest("cmds must be an object of strings");
  Commands out;
  for (auto it = given->begin(); it != given->end(); ++it) {
    if (!it.value().is_string()) throw Error::badRequest("cmds must be an object of strings");
    out.emplace(it.key(), it.value().get<std::string>());
  }
  return out;
}

// ---- a contributor's answer: for each id, the fields it owns --------------------------------

/** files_count and files_bytes of one project. */
inline nlohmann::json filesJson(int64_t files_count, int64_t files_bytes) {
  return {{"files_count", files_count}, {"files_bytes", files_bytes}};
}

/** state and live of one project. */
inline nlohmann::json stateJson(bool running, const std::optional<LiveRelease>& live) {
  return {{"state", running ? "running" : "stopped"},
          {"live", live ? toJson(*live) : nlohmann::json()}};
}

/** runtime of one project (null: its command names none). */
inline nlohmann::json runtimeJson(const std::optional<std::string>& runtime) {
  return {{"runtime", runtime ? nlohmann::json(*runtime) : nlohmann::json()}};
}

// ---- the projects plugin's side ---------------------------------------------------------------

/** Merges one answer into `fields`, taking the fields it names for the ids asked.
 *  @throw Error 500 naming the first field it cannot read; `fields` is unchanged then. */
inline void mergeAnswer(ProjectFields& fields, const std::vector<std::string>& ids,
                        const nlohmann::json& answer) {
  service_json::Answer a(answer, kEvent, "answer");
  std::vector<std::pair<const std::string*, Fields>> merged;
  for (const std::string& id : ids) {
    auto given = answer.find(id);
    if (given == answer.end()) continue;
    service_json::Answer part = a.object(id);
    const nlohmann::json& named = *given;
    auto known = fields.find(id);
    Fields f = known != fields.end() ? known->second : Fields{};
    if (named.contains("files_count"))
      f.files_count = static_cast<int64_t>(part.count("files_count"));
    if (named.contains("files_bytes"))
      f.files_bytes = static_cast<int64_t>(part.count("files_bytes"));
    if (named.contains("state")) {
      const std::string state = part.text("state");
      if (state != "running" && state != "stopped")
        throw part.refusal("state", "running or stopped");
      f.running = state == "running";
    }
    if (named.contains("live")) {
      f.live.reset();
      if (std::optional<service_json::Answer> live = part.objectOrNull("live"))
        f.live = LiveRelease{live->text("id"), live->integer("created_at"), live->count("files"),
                             live->count("bytes")};
    }
    if (named.contains("runtime")) f.runtime = part.textOrNull("runtime");
    merged.emplace_back(&id, std::move(f));
  }
  for (auto& [id, f] : merged) fields[*id] = std::move(f);
}

/** What the loaded plugins answered about these projects, merged. */
struct Collected {
  ProjectFields fields;               ///< ids nobody answered for are absent: the defaults
  std::vector<std::string> problems;  ///< why each answer left out was
};

namespace detail {
inline Collected collectFor(const Services& services, const std::vector<std::string>& ids,
                            const nlohmann::json& payload) {
  Collected out;
  for (const nlohmann::json& answer : services.fireForAnswers(kEvent, payload)) {
    try {
      mergeAnswer(out.fields, ids, answer);
    } catch (const Error& e) {
      out.problems.push_back(e.message());
    }
  }
  return out;
}
}  // namespace detail

/** Fires the event for these ids, with their start commands, and merges the answers (what the
 *  projects plugin does).
 *  @throw Error as Services::fireForAnswers (a contributor refused). */
inline Collected collect(const Services& services, const std::vector<std::string>& ids,
                         const Commands& cmds) {
  return detail::collectFor(services, ids, payloadJson(ids, cmds));
}

/** The same with {ids} alone: no field derived from a command is answered. */
inline Collected collect(const Services& services, const std::vector<std::string>& ids) {
  return detail::collectFor(services, ids, idsJson(ids));
}

}  // namespace projects_view
}  // namespace berth

#endif  // BERTH_SERVICES_PROJECTS_VIEW_HPP
