// fuzz-link: yaml-cpp PkgConfig::LIBPQ
// fuzz-sources: core/src/config/settings.cpp core/src/config/yaml_source.cpp
// fuzz-sources: core/src/config/yaml_to_json.cpp core/src/config/yaml_value_reader.cpp
// fuzz-sources: core/src/config/config_text.cpp core/src/config/listen_address.cpp
// fuzz-sources: core/src/config/install_layout.cpp core/src/cluster/node_address.cpp
//
// berthd's configuration loader (loadSettings: berth.yaml plus --set overrides): any text
// either loads or is refused with ConfigError, whose message names the file; never another
// exception, a crash, a hang or a stack overflow.
//
// Input: the file's text, optionally followed by a line "#--set" (a YAML comment, so the file
// stays the same) and then one "key=value" override per line, as berthd's --set takes them.
//
// Nesting: yaml-cpp 0.7 refuses a text nested deeper than about 500 levels itself
// (YAML::DeepRecursion, which the loader reports as invalid YAML), so the input's nesting is
// not capped here; deep texts are part of what is tested (seeds nested_*). Aliases nest and
// repeat past that (an alias inside its own anchor is a cycle): the loader bounds them.

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config/settings.hpp"
#include "support/fuzz_check.hpp"

namespace {

const std::string& configFile() {
  static const std::string file = [] {
    auto dir = std::filesystem::temp_directory_path() /
               ("berth-config-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    static const std::string kept_dir = dir.string();
    // The fuzzer and the replay end with exit(); a crash leaves the folder to look at.
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(kept_dir, ignored);
    });
    return (dir / "berth.yaml").string();
  }();
  return file;
}

std::vector<berth::core::Override> overridesIn(std::string_view text) {
  std::vector<berth::core::Override> overrides;
  size_t start = 0;
  while (start < text.size() && overrides.size() < 16) {
    size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? nl : nl - start);
    size_t eq = line.find('=');
    // berthd's --set splits at the first '=' and needs one.
    if (eq != std::string_view::npos)
      overrides.push_back({std::string(line.substr(0, eq)), std::string(line.substr(eq + 1))});
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return overrides;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16384) return 0;
  const std::string_view input = berth::fuzz::asText(data, size);
  const std::string_view marker = "\n#--set\n";
  const size_t split = input.find(marker);
  const std::string_view yaml = input.substr(0, split);
  const auto overrides = split == std::string_view::npos
                             ? std::vector<berth::core::Override>{}
                             : overridesIn(input.substr(split + marker.size()));
  const std::string& file = configFile();
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(yaml.data(), static_cast<std::streamsize>(yaml.size()));
  }
  try {
    const berth::core::Settings s = berth::core::loadSettings(file, overrides);
    berth::fuzz::check(!s.plans.empty() && s.plans.size() == s.plan_order.size(),
                       "loaded without plans", std::string(input));
    berth::fuzz::check(s.listen.port != 0, "loaded with port 0", std::string(input));
  } catch (const berth::core::ConfigError& e) {
    const std::string message = e.what();
    berth::fuzz::check(message.find(file) != std::string::npos,
                       "a refusal that does not name the file", message);
  } catch (const std::exception& e) {
    berth::fuzz::fail(
        "loading threw something other than ConfigError",
        std::string(typeid(e).name()) + ": " + e.what() + "\ninput: " + std::string(input));
  }
  return 0;
}
