#include "http/reference_routes.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "config/yaml_to_json.hpp"
#include "log/logging.hpp"

namespace berth::core {

namespace {

std::optional<std::string> readWhole(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The answer of one reference route, made once: the document, or why there is none.
HttpResponse referenceAnswer(const std::string& share_dir, const std::string& name,
                             bool from_yaml) {
  const std::string file = share_dir + "/" + name;
  std::optional<std::string> text = readWhole(file);
  if (!text) {
    logLine(*getLogger("core"), spdlog::level::warn, "", "",
            "the API reference " + file + " is missing; it is made when berthd is built");
    return HttpResponse::error(404, "the API reference was not built with this berthd");
  }
  HttpResponse answer;
  if (from_yaml) {
    try {
      answer = HttpResponse::json(200, yamlToJson(YAML::Load(*text)).dump());
    } catch (const YAML::Exception& e) {
      logLine(*getLogger("core"), spdlog::level::err, "", "",
              "the API reference " + file + " is not valid YAML: " + e.what());
      return HttpResponse::error(500, "the API reference could not be read");
    }
  } else {
    answer.status = 200;
    answer.content_type = "text/html; charset=utf-8";
    answer.body = std::move(*text);
  }
  answer.headers.emplace_back("Cache-Control", "public, max-age=300");
  return answer;
}

Route referenceRoute(const std::string& pattern, HttpResponse answer) {
  Route route;
  route.method = "GET";
  route.pattern = pattern;
  route.owner = "core";
  route.is_public = true;
  auto shared = std::make_shared<const HttpResponse>(std::move(answer));
  route.handler = [shared](std::shared_ptr<HttpRequest>, Reply reply) { reply(*shared); };
  return route;
}

}  // namespace

void addReferenceRoutes(Router& router, const std::string& share_dir) {
  router.add(referenceRoute("/openapi.json", referenceAnswer(share_dir, "openapi.yaml", true)));
  router.add(referenceRoute("/docs", referenceAnswer(share_dir, "docs.html", false)));
}

}  // namespace berth::core
