// Secrets at rest: AES-256-GCM (OpenSSL) under the key of projects.secrets_key.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

namespace berth::projects {

class SecretBox {
 public:
  // key_hex: 64 hexadecimal characters. Throws std::invalid_argument otherwise.
  explicit SecretBox(std::string_view key_hex);
  ~SecretBox();  // wipes the key
  // Base64 text of version byte | 12-byte random nonce | ciphertext | 16-byte tag.
  // associated: bound into the tag (the project id and secret name), so a sealed value copied
  // to another project or name does not open.
  std::string seal(std::string_view plaintext, std::string_view associated) const;
  // Throws std::runtime_error when the text was altered, the key differs or associated differs.
  std::string open(std::string_view sealed, std::string_view associated) const;

 private:
  unsigned char key_[32];
};

bool isSecretsKey(std::string_view key_hex);  // 64 hex characters

}  // namespace berth::projects
