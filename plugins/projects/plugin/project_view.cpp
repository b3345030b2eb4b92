#include "project_view.hpp"

#include <berth/services/projects_view.hpp>
#include <berth/util/json_text.hpp>
#include <nlohmann/json.hpp>

namespace berth::projects {

namespace {

namespace view_parts = berth::projects_view;

// Asks whichever plugins own the Project's other fields (files, state, live release, runtime)
// about these projects, in one event for all of them, with each one's start command (the
// runtime is named from it); a project nobody answered for, or an answer that failed, shows
// the defaults (zeros, "stopped", null).
view_parts::ProjectFields askOtherPlugins(const Context& context,
                                          const std::vector<const ProjectRecord*>& projects) {
  std::vector<std::string> ids;
  view_parts::Commands cmds;
  ids.reserve(projects.size());
  for (const ProjectRecord* p : projects) {
    ids.push_back(p->id);
    cmds.emplace(p->id, p->cmd);
  }
  try {
    view_parts::Collected collected = view_parts::collect(*context.services, ids, cmds);
    for (const std::string& problem : collected.problems)
      context.logger().warn("an answer to projects.view.v1 was left out: " + problem);
    return std::move(collected.fields);
  } catch (const berth::Error& e) {
    context.logger().warn(std::string("projects.view.v1 failed: ") + e.what());
  }
  return {};
}

// Members of one JSON object, written in the order they are given.
class ObjectText {
 public:
  explicit ObjectText(std::string& out) : out_(out) {}
  ObjectText& text(std::string_view key, std::string_view value) {
    name(key);
    appendJsonString(out_, value);
    return *this;
  }
  ObjectText& number(std::string_view key, int64_t value) {
    name(key);
    out_ += std::to_string(value);
    return *this;
  }
  ObjectText& boolean(std::string_view key, bool value) {
    name(key);
    out_ += value ? "true" : "false";
    return *this;
  }
  ObjectText& null(std::string_view key) {
    name(key);
    out_ += "null";
    return *this;
  }
  ObjectText& json(std::string_view key, const nlohmann::json& value) {
    name(key);
    out_ += value.dump();
    return *this;
  }
  // The key; the caller writes the value.
  std::string& member(std::string_view key) {
    name(key);
    return out_;
  }
  void close() { out_ += first_ ? "{}" : "}"; }

 private:
  void name(std::string_view key) {
    out_ += first_ ? '{' : ',';
    first_ = false;
    appendJsonString(out_, key);
    out_ += ':';
  }
  std::string& out_;
  bool first_ = true;
};

// Members in the order of the keys' bytes, as the API has always written them.
void appendProject(std::string& out, const Context& context, const ProjectRecord& p,
                   const berth::Account* owner, const view_parts::ProjectFields& parts,
                   ViewOptions options) {
  static const view_parts::Fields kDefaults;
  auto given = parts.find(p.id);
  const view_parts::Fields& part = given != parts.end() ? given->second : kDefaults;
  const view_parts::Fields& files = options.zero_files ? kDefaults : part;
  ObjectText view(out);
  view.boolean("cache_enabled", p.cache_enabled)
      .number("cache_ttl", p.cache_ttl)
      .text("cmd", p.cmd)
      .number("created_at", p.created_at)
      .number("db_bytes", p.db_bytes)
      .number("files_bytes", files.files_bytes)
      .number("files_count", files.files_count)
      .text("host", context.hostOf(p.name))
      .boolean("ignore_dockerfile", p.ignore_dockerfile)
      .text("label", p.label);
  if (part.live)
    view.json("live", view_parts::toJson(*part.live));
  else
    view.null("live");
  view.text("name", p.name);
  if (owner) {
    ObjectText who(view.member("owner"));
    if (owner->isTeam)
      who.null("email");
    else
      who.text("email", owner->email);
    who.text("id", owner->id).text("slug", owner->slug).close();
  } else {
    view.null("owner");
  }
  view.text("region", p.region);
  if (part.runtime)
    view.text("runtime", *part.runtime);
  else
    view.null("runtime");
  view.text("state", view_parts::stateText(part));
  if (owner && owner->isTeam)
    view.text("team", owner->slug);
  else
    view.null("team");
  view.text("url", context.urlOf(p.name)).close();
}

}  // namespace

std::string projectViewJson(const Context& context, const ProjectRecord& project,
                            const berth::Account* owner, ViewOptions options) {
  std::string out;
  appendProject(out, context, project, owner, askOtherPlugins(context, {&project}), options);
  return out;
}

std::string projectListJson(const Context& context, const std::vector<ProjectRecord>& projects,
                            const Access& access) {
  std::vector<const ProjectRecord*> shown;
  shown.reserve(projects.size());
  for (const auto& p : projects) shown.push_back(&p);
  view_parts::ProjectFields parts =
      projects.empty() ? view_parts::ProjectFields{} : askOtherPlugins(context, shown);
  std::string out = "{\"projects\":[";
  out.reserve(projects.size() * 512 + 16);
  for (size_t i = 0; i < projects.size(); ++i) {
    if (i) out += ',';
    appendProject(out, context, projects[i], access.account(projects[i].account_id), parts, {});
  }
  out += "]}";
  return out;
}

}  // namespace berth::projects
