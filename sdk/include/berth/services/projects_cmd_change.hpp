// SPDX-License-Identifier: MIT
/** @file
 *  projects.cmd_change.v1: the hook through which other plugins may refuse a project's new
 *  start command before the projects plugin stores it (PATCH /projects/{name} and
 *  projects.directory.v1 `set_cmd`), so that the projects plugin names none of them: the rules
 *  belong to whoever runs the command. Header-only, no ABI: the payload and the answer, their
 *  JSON written and read once, and both ends of the exchange.
 *
 *  The projects plugin fires the event through Services::fireForAnswers with
 *  {project_id, cmd} (the proposed command; "" clears it) each time a cmd is given, after the
 *  checks of its own that come first (region) and before anything is stored. A plugin with
 *  rules subscribes with Registrar::hookAnswer and answers {refusal: text} to refuse, or
 *  nothing (null, {} or {refusal: null}) to accept. The projects plugin refuses the change with
 *  400 and the first refusal in load order as its text, and stores the command when nobody
 *  refuses, or nobody listens (then any command is stored).
 *
 *  The runtime plugin answers with its start-command rules (docs/openapi.yaml, the texts of
 *  PATCH /projects/{name}): "the start command must be one line", "the start command is run
 *  directly, not through a shell, so it cannot contain <c>", "the start command is run
 *  directly, so it cannot begin with an assignment like NAME=value; set a secret instead".
 *
 *  A refusal text is a sentence the user reads: non-empty. A contributor that cannot decide
 *  throws (an Error the hook passes on): the event stops, the change is not made, and the
 *  firer answers with that Error's status and text. An answer the projects plugin cannot read
 *  fails the change with Error 500 naming the field.
 */
#ifndef BERTH_SERVICES_PROJECTS_CMD_CHANGE_HPP
#define BERTH_SERVICES_PROJECTS_CMD_CHANGE_HPP

#include <berth/error.hpp>
#include <berth/services.hpp>
#include <berth/services/service_json.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace berth {
namespace projects_cmd_change {

inline constexpr std::string_view kEvent = "projects.cmd_change.v1";

/** A start command the projects plugin is about to store. */
struct Change {
  std::string project_id;
  std::string cmd;  ///< the proposed command; "" clears it

  bool operator==(const Change&) const = default;
};

// ---- the event's payload --------------------------------------------------------------------

inline nlohmann::json toJson(const Change& c) {
  return {{"project_id", c.project_id}, {"cmd", c.cmd}};
}

/** @throw Error 400 "project_id is required and must be a string",
 *  "cmd is required and must be a string". */
inline Change parseChange(const nlohmann::json& payload) {
  return {service_json::requiredText(payload, "project_id"),
          service_json::requiredText(payload, "cmd")};
}

// ---- a contributor's answer -----------------------------------------------------------------

/** Refuses the change with `why` (a non-empty sentence). */
inline nlohmann::json refusalJson(std::string_view why) {
  return {{"refusal", why}};
}

/** The refusal of one answer; std::nullopt when it accepts.
 *  @throw Error 500 when it is not an object, or its refusal is neither a non-empty string
 *  nor null. */
inline std::optional<std::string> parseAnswer(const nlohmann::json& answer) {
  service_json::Answer read(answer, kEvent, "answer");
  if (!answer.contains("refusal")) return std::nullopt;
  std::optional<std::string> refusal = read.textOrNull("refusal");
  if (refusal && refusal->empty()) throw read.refusal("refusal", "a non-empty string or null");
  return refusal;
}

// ---- the projects plugin's side ---------------------------------------------------------------

/** Fires the event for this change: the first refusal in load order, std::nullopt when every
 *  contributor accepts (or none listens).
 *  @throw Error as Services::fireForAnswers (a contributor could not decide); Error 500 from
 *  parseAnswer. Either way the change must not be made. */
inline std::optional<std::string> firstRefusal(const Services& services, const Change& change) {
  for (const nlohmann::json& answer : services.fireForAnswers(kEvent, toJson(change)))
    if (std::optional<std::string> refusal = parseAnswer(answer)) return refusal;
  return std::nullopt;
}

}  // namespace projects_cmd_change
}  // namespace berth

#endif  // BERTH_SERVICES_PROJECTS_CMD_CHANGE_HPP
