#include "project_view.hpp"

#include <berth/json_text.hpp>
#include <nlohmann/json.hpp>

#include "commands.hpp"

namespace berth::projects {

namespace {

struct Extras {
  nlohmann::json files;    // id -> {files_count, files_bytes}
  nlohmann::json runtime;  // id -> {state, live}
};

// Asks the plugins that own files and processes about these projects; an absent plugin leaves
// zeros and nulls.
Extras askOtherPlugins(const Context& context, const std::vector<std::string>& ids) {
  Extras extras;
  nlohmann::json request = {{"ids", ids}};
  try {
    if (auto a = context.services->tryCall("storage.stats.v1", "projects", request))
      extras.files = std::move(*a);
  } catch (const berth::Error& e) {
    context.logger().warn(std::string("storage stats unavailable: ") + e.what());
  }
  try {
    if (auto a = context.services->tryCall("runtime.status.v1", "projects", request))
      extras.runtime = std::move(*a);
  } catch (const berth::Error& e) {
    context.logger().warn(std::string("runtime status unavailable: ") + e.what());
  }
  return extras;
}

// The answer of another plugin about one project, or nullptr.
const nlohmann::json* partOf(const nlohmann::json& answer, const std::string& id) {
  if (!answer.is_object()) return nullptr;
  auto it = answer.find(id);
  return it != answer.end() && it->is_object() ? &*it : nullptr;
}

int64_t numberIn(const nlohmann::json* part, const char* key) {
  if (!part) return 0;
  auto it = part->find(key);
  return it != part->end() && it->is_number_integer() ? it->get<int64_t>() : 0;
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
                   const berth::Account* owner, const Extras& extras, ViewOptions options) {
  const nlohmann::json* files = options.zero_files ? nullptr : partOf(extras.files, p.id);
  const nlohmann::json* runtime = partOf(extras.runtime, p.id);
  auto runtimeName = guessRuntime(p.cmd);
  ObjectText view(out);
  view.boolean("cache_enabled", p.cache_enabled)
      .number("cache_ttl", p.cache_ttl)
      .text("cmd", p.cmd)
      .number("created_at", p.created_at)
      .number("db_bytes", p.db_bytes)
      .number("files_bytes", numberIn(files, "files_bytes"))
      .number("files_count", numberIn(files, "files_count"))
      .text("host", context.hostOf(p.name))
      .boolean("ignore_dockerfile", p.ignore_dockerfile)
      .text("label", p.label);
  auto live = runtime ? runtime->find("live") : nlohmann::json::const_iterator();
  if (runtime && live != runtime->end())
    view.json("live", *live);
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
  if (runtimeName)
    view.text("runtime", *runtimeName);
  else
    view.null("runtime");
  auto state = runtime ? runtime->find("state") : nlohmann::json::const_iterator();
  view.text("state", runtime && state != runtime->end() && state->is_string()
                         ? state->get_ref<const std::string&>()
                         : std::string("stopped"));
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
  appendProject(out, context, project, owner, askOtherPlugins(context, {project.id}), options);
  return out;
}

std::string projectListJson(const Context& context, const std::vector<ProjectRecord>& projects,
                            const Access& access) {
  std::vector<std::string> ids;
  ids.reserve(projects.size());
  for (const auto& p : projects) ids.push_back(p.id);
  Extras extras = projects.empty() ? Extras{} : askOtherPlugins(context, ids);
  std::string out = "{\"projects\":[";
  out.reserve(projects.size() * 512 + 16);
  for (size_t i = 0; i < projects.size(); ++i) {
    if (i) out += ',';
    appendProject(out, context, projects[i], access.account(projects[i].account_id), extras, {});
  }
  out += "]}";
  return out;
}

}  // namespace berth::projects
