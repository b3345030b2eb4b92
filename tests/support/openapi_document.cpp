#include "support/openapi_document.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>

#include "config/yaml_to_json.hpp"
#include "support/berthd_process.hpp"
#include "util/process.hpp"

namespace berth::testing {

nlohmann::json loadOpenApiDocument() {
  return core::yamlToJson(
      YAML::LoadFile(std::string(BERTH_TEST_SOURCE_DIR) + "/docs/openapi.yaml"));
}

void AnswerSamples::add(const std::string& method, const std::string& path,
                        const HttpResult& answer) {
  samples_.push_back({{"method", method},
                      {"path", path},
                      {"status", answer.status},
                      {"content_type", answer.header("content-type")},
                      {"body", answer.body}});
}

AnswerSamples::Report AnswerSamples::check(const nlohmann::json& document) const {
  std::string dir = makeTempDir("berth-openapi-");
  std::ofstream(dir + "/document.json") << document.dump();
  std::ofstream(dir + "/samples.json") << samples_.dump();
  core::RunResult run =
      core::runCommand({"/usr/bin/python3",
                        std::string(BERTH_TEST_SOURCE_DIR) + "/tests/support/validate_answers.py",
                        dir + "/document.json", dir + "/samples.json"});
  removeTree(dir);
  return Report{run.status.ok(), run.output};
}

}  // namespace berth::testing
