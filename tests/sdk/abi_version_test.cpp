// The ABI guard: abi.h's SHA-256 and the version it was taken at (berth/abi_version.h) must
// match the file and its BERTH_ABI_MAJOR.MINOR, so that no change to the binary contract
// slips in without a version bump.
#include <berth/abi.h>
#include <berth/abi_version.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <filesystem>
#include <iomanip>
#include <sstream>

#include "support/berthd_process.hpp"

namespace {

std::string sha256Hex(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &size, EVP_sha256(), nullptr);
  std::ostringstream hex;
  for (unsigned int i = 0; i < size; ++i)
    hex << std::hex << std::setw(2) << std::setfill('0') << static_cast<int>(digest[i]);
  return hex.str();
}

TEST(AbiVersion, TheFingerprintIsOfThisAbiAndThisVersion) {
  const std::filesystem::path abi_file =
      std::filesystem::path(BERTH_TEST_SOURCE_DIR) / "sdk/include/berth/abi.h";
  const std::string abi = berth::testing::readFile(abi_file.string());
  ASSERT_FALSE(abi.empty());
  std::ostringstream version;
  version << BERTH_ABI_MAJOR << "." << BERTH_ABI_MINOR;
  EXPECT_EQ(sha256Hex(abi), BERTH_ABI_FINGERPRINT)
      << "abi.h changed: the binary contract between berthd and its plugins is not what "
         "berth/abi_version.h recorded. Bump BERTH_ABI_MINOR (append-only change) or "
         "BERTH_ABI_MAJOR, then record the new version and this hash in berth/abi_version.h.";
  EXPECT_EQ(version.str(), BERTH_ABI_FINGERPRINT_VERSION)
      << "berth/abi_version.h was taken at another ABI version than abi.h declares";
}

}  // namespace
