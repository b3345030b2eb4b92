// SHA-256 of bytes fed in pieces (OpenSSL's EVP), for blobs hashed while they are copied.
#pragma once
#include <memory>
#include <string>
#include <string_view>

namespace berth::storage {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(const void* data, size_t size);
  // The digest as 64 lower-case hexadecimal characters; the hasher is spent afterwards.
  std::string hexDigest();

  static std::string of(std::string_view bytes);

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

}  // namespace berth::storage
