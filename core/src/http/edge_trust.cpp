#include "http/edge_trust.hpp"

#include <openssl/crypto.h>

#include "auth/accounts.hpp"  // randomHex

namespace berth::core {

const std::string& edgeProof() {
  static const std::string proof = randomHex(32);
  return proof;
}

const std::string& nodeProof() {
  static const std::string proof = randomHex(32);
  return proof;
}

bool sameSecret(std::string_view given, std::string_view secret) {
  if (secret.empty() || given.size() != secret.size()) return false;
  return CRYPTO_memcmp(given.data(), secret.data(), secret.size()) == 0;
}

std::string edgeBodyDir(const std::string& data_dir) {
  return data_dir + "/edge/client_body";
}

}  // namespace berth::core
