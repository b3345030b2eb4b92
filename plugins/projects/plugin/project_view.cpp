#include "project_view.hpp"

#include <berth/services/runtime_status.hpp>
#include <berth/services/storage_stats.hpp>
#include <berth/util/json_text.hpp>
#include <nlohmann/json.hpp>

#include "commands.hpp"

namespace berth::projects {

namespace {

struct Extras {
  berth::storage_stats::ProjectFiles files;        // by project id
  berth::runtime_status::ProjectStatuses runtime;  // by project id
};

// Asks the plugins that own files and processes about these projects; an absent plugin (or one
// that fails) leaves zeros and nulls.
Extras askOtherPlugins(const Context& context, const std::vector<std::string>& ids) {
  Extras extras;
  try {
    if (auto files = berth::StorageStats(*context.services).tryProjects(ids))
      extras.files = std::move(*files);
  } catch (const berth::Error& e) {
    context.logger().warn(std::string("storage stats unavailable: ") + e.what());
  }
  try {
    if (auto runtime = berth::RuntimeStatus(*context.services).tryProjects(ids))
      extras.runtime = std::move(*runtime);
  } catch (const berth::Error& e) {
    context.logger().warn(std::string("runtime status unavailable: ") + e.what());
  }
  return extras;
}

// What another plugin answered about one project, or nullptr.
template <class Answers>
const typename Answers::mapped_type* partOf(const Answers& answers, const std::string& id) {
  auto it = answers.find(id);
  return it != answers.end() ? &it->second : nullptr;
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
  const berth::storage_stats::FileStats* files =
      options.zero_files ? nullptr : partOf(extras.files, p.id);
  const berth::runtime_status::Status* runtime = partOf(extras.runtime, p.id);
  auto runtimeName = guessRuntime(context, p.cmd);
  ObjectText view(out);
  view.boolean("cache_enabled", p.cache_enabled)
      .number("cache_ttl", p.cache_ttl)
      .text("cmd", p.cmd)
      .number("created_at", p.created_at)
      .number("db_bytes", p.db_bytes)
      .number("files_bytes", files ? files->files_bytes : 0)
      .number("files_count", files ? files->files_count : 0)
      .text("host", context.hostOf(p.name))
      .boolean("ignore_dockerfile", p.ignore_dockerfile)
      .text("label", p.label);
  if (runtime && runtime->live)
    view.json("live", berth::runtime_status::toJson(*runtime->live));
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
  view.text("state", runtime ? berth::runtime_status::stateText(*runtime) : "stopped");
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
