#include "plugin/declarations.hpp"

#include <limits>
#include <stdexcept>

#include "plugin/abi_views.hpp"
#include "plugin/request_bridge.hpp"

namespace berth::core {
namespace {

[[noreturn]] void refuse(const std::string& why) {
  throw std::invalid_argument(why);
}

std::string methodName(uint32_t method) {
  switch (method) {
    case BERTH_GET:
      return "GET";
    case BERTH_POST:
      return "POST";
    case BERTH_PUT:
      return "PUT";
    case BERTH_PATCH:
      return "PATCH";
    case BERTH_DELETE:
      return "DELETE";
    case BERTH_HEAD:
      return "HEAD";
    case BERTH_OPTIONS:
      return "OPTIONS";
    case BERTH_ANY:
      return "*";
    default:
      refuse("unknown method " + std::to_string(method));
  }
  return {};
}

BodyKind bodyKind(uint32_t flags) {
  const bool json = flags & BERTH_ROUTE_JSON_BODY;
  const bool raw = flags & BERTH_ROUTE_RAW_BODY;
  if (json && raw) refuse("a route cannot take both a JSON and a raw body");
  return json ? BodyKind::Json : raw ? BodyKind::Raw : BodyKind::None;
}

std::vector<FieldRule> fieldRules(const berth_route& route, const std::string& label) {
  if (route.field_count > 0 && route.fields == nullptr)
    refuse(label + ": field_count without fields");
  if (route.field_count > 0 && !(route.flags & BERTH_ROUTE_JSON_BODY))
    refuse(label + ": body fields need BERTH_ROUTE_JSON_BODY");
  std::vector<FieldRule> rules;
  for (size_t i = 0; i < route.field_count; ++i) {
    const berth_field& field = route.fields[i];
    if (view(field.name).empty()) refuse(label + ": a body field without a name");
    if (field.type > BERTH_FIELD_NUMBER)
      refuse(label + ": field " + copy(field.name) + " has unknown type " +
             std::to_string(field.type));
    rules.push_back(FieldRule{copy(field.name), static_cast<int>(field.type), field.required != 0});
  }
  return rules;
}

bool isSimpleName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace

Route makeRoute(const std::string& owner, const berth_route& route, const std::string& data_dir) {
  if (route.struct_size < sizeof(berth_route)) refuse("berth_route is smaller than ABI v1's");
  Route core;
  core.method = methodName(route.method);
  core.pattern = copy(route.path);
  const std::string label = core.method + " " + core.pattern;
  if (core.pattern.empty() || core.pattern.front() != '/')
    refuse("route path \"" + core.pattern + "\" must start with /");
  constexpr uint32_t known_flags =
      BERTH_ROUTE_PUBLIC | BERTH_ROUTE_JSON_BODY | BERTH_ROUTE_RAW_BODY | BERTH_ROUTE_PROJECT_HOST;
  if (route.flags & ~known_flags) refuse(label + ": unknown route flags");
  core.is_public = route.flags & BERTH_ROUTE_PUBLIC;
  core.project_host = route.flags & BERTH_ROUTE_PROJECT_HOST;
  if (route.method == BERTH_ANY && !core.project_host)
    refuse(label + ": any-method routes are for project hosts only");
  core.body = bodyKind(route.flags);
  if (core.body == BodyKind::Raw && route.max_body_bytes == 0)
    refuse(label + ": a raw-body route must give max_body_bytes");
  core.max_body_bytes = route.max_body_bytes == 0 ? kDefaultMaxBodyBytes : route.max_body_bytes;
  core.fields = fieldRules(route, label);
  if (route.fn == nullptr) refuse(label + ": no handler function");
  core.owner = owner;
  core.handler = makePluginHandler(route.fn, route.user, data_dir);
  return core;
}

PluginKey makePluginKey(const berth_config_key& key) {
  if (key.struct_size < sizeof(berth_config_key))
    refuse("berth_config_key is smaller than ABI v1's");
  PluginKey core;
  core.name = copy(key.name);
  if (!isSimpleName(core.name)) refuse("config key \"" + core.name + "\" must be [a-z0-9_]+");
  if (key.type > BERTH_CONFIG_INT_MAP)
    refuse("config key " + core.name + " has unknown type " + std::to_string(key.type));
  core.type = static_cast<int>(key.type);
  if (!isAbsent(key.default_json)) {
    core.default_value = nlohmann::json::parse(view(key.default_json), nullptr, false);
    if (core.default_value.is_discarded())
      refuse("config key " + core.name +
             " has a default that is not JSON: " + copy(key.default_json));
  }
  core.min = key.min;
  core.max = key.max;
  core.description = copy(key.description);
  return core;
}

JobDecl makeJob(const std::string& owner, const berth_job& job) {
  if (job.struct_size < sizeof(berth_job)) refuse("berth_job is smaller than ABI v1's");
  const std::string name = copy(job.name);
  if (!isSimpleName(name)) refuse("job name \"" + name + "\" must be [a-z0-9_]+");
  if (job.fn == nullptr) refuse("job " + name + " has no function");
  if (job.period_ms == 0) refuse("job " + name + " needs a period");
  JobDecl core;
  core.id = owner + "." + name;
  core.period = std::chrono::milliseconds(job.period_ms);
  core.run_on_start = job.run_on_start != 0;
  core.run = [fn = job.fn, user = job.user](const std::atomic<bool>& stop_requested) {
    berth_job_ctx context{&stop_requested};
    fn(user, &context);
  };
  return core;
}

Migration makeMigration(const std::string& owner, uint32_t version, berth_str name, berth_str sql) {
  if (version == 0 || version > static_cast<uint32_t>(std::numeric_limits<int>::max()))
    refuse("migration version " + std::to_string(version) + " is out of range");
  if (view(sql).empty()) refuse("migration " + std::to_string(version) + " has no SQL");
  return Migration{owner, static_cast<int>(version), copy(name), copy(sql)};
}

}  // namespace berth::core
