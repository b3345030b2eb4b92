// SPDX-License-Identifier: MIT
/** @file
 *  What an installer does with the files of its payload folder: read one whole, and name what
 *  was built from them by a SHA-256 digest (a shared tree's name changes with its recipe).
 *  Header-only, no ABI; sha256Hex needs OpenSSL's libcrypto (link OpenSSL::Crypto). */
#ifndef BERTH_PAYLOAD_FILES_HPP
#define BERTH_PAYLOAD_FILES_HPP

#include <berth/error.hpp>

#include <openssl/evp.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

namespace berth::payload {

/** The file's bytes; a missing or unreadable file is a 500 "the <app> payload has no <path>":
 *  the plugin was installed without it. */
inline std::string readFile(const std::filesystem::path& path, std::string_view app) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(500, "the " + std::string(app) + " payload has no " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/** The SHA-256 digest of `bytes`, as 64 lower-case hex digits. */
inline std::string sha256Hex(std::string_view bytes) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size()) != 1 ||
      EVP_DigestFinal_ex(ctx.get(), digest, &size) != 1)
    throw Error(500, "SHA-256 failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 15]);
  }
  return hex;
}

}  // namespace berth::payload

#endif
