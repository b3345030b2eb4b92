#include "secret_box.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <climits>
#include <memory>
#include <optional>

namespace berth::projects {
namespace {

constexpr unsigned char kVersion = 0x01;
constexpr size_t kNonceSize = 12;
constexpr size_t kTagSize = 16;
constexpr size_t kHeaderSize = 1 + kNonceSize;

// One message for every way open() can fail: telling a caller which check failed helps an
// attacker more than it helps an operator.
constexpr const char* kOpenFailed = "the secret could not be decrypted";

struct CipherCtxFree {
  void operator()(EVP_CIPHER_CTX* ctx) const { EVP_CIPHER_CTX_free(ctx); }
};
using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree>;

CipherCtx newCtx() {
  CipherCtx ctx(EVP_CIPHER_CTX_new());
  if (!ctx) throw std::runtime_error("OpenSSL could not allocate a cipher context");
  return ctx;
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// EVP_EncodeBlock/EVP_DecodeBlock would do, but DecodeBlock keeps the padding bytes in its
// length and accepts whitespace; a strict codec of our own is shorter than the fix-ups.
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64Encode(const std::string& in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    unsigned v =
        (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8 | (unsigned char)in[i + 2];
    out += kAlphabet[v >> 18 & 63];
    out += kAlphabet[v >> 12 & 63];
    out += kAlphabet[v >> 6 & 63];
    out += kAlphabet[v & 63];
  }
  size_t rest = in.size() - i;
  if (rest == 1) {
    unsigned v = (unsigned char)in[i] << 16;
    out += kAlphabet[v >> 18 & 63];
    out += kAlphabet[v >> 12 & 63];
    out += "==";
  } else if (rest == 2) {
    unsigned v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8;
    out += kAlphabet[v >> 18 & 63];
    out += kAlphabet[v >> 12 & 63];
    out += kAlphabet[v >> 6 & 63];
    out += '=';
  }
  return out;
}

int base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Strict: padded to a multiple of 4, no whitespace, and the unused low bits of the last
// symbol must be zero, so each byte string has exactly one accepted text.
std::optional<std::string> base64Decode(std::string_view in) {
  if (in.size() % 4 != 0) return std::nullopt;
  size_t padding = 0;
  if (!in.empty() && in.back() == '=') padding = in.size() >= 2 && in[in.size() - 2] == '=' ? 2 : 1;
  std::string out;
  out.reserve(in.size() / 4 * 3);
  for (size_t i = 0; i < in.size(); i += 4) {
    bool last = i + 4 == in.size();
    unsigned v = 0;
    for (size_t j = 0; j < 4; ++j) {
      char c = in[i + j];
      int d;
      if (last && j >= 4 - padding) {
        d = 0;  // the '=' checked by the padding count above
      } else {
        d = base64Value(c);
        if (d < 0) return std::nullopt;
      }
      v = v << 6 | unsigned(d);
    }
    out += char(v >> 16 & 0xff);
    if (last && padding == 2) {
      if (v & 0xffff) return std::nullopt;
      break;
    }
    out += char(v >> 8 & 0xff);
    if (last && padding == 1) {
      if (v & 0xff) return std::nullopt;
      break;
    }
    out += char(v & 0xff);
  }
  return out;
}

// EVP lengths are int; refuse anything that would not fit rather than truncate.
int checkedLength(size_t n) {
  if (n > size_t(INT_MAX)) throw std::length_error("a secret of this size cannot be sealed");
  return int(n);
}

const unsigned char* bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

}  // namespace

bool isSecretsKey(std::string_view key_hex) {
  if (key_hex.size() != 64) return false;
  for (char c : key_hex)
    if (hexValue(c) < 0) return false;
  return true;
}

SecretBox::SecretBox(std::string_view key_hex) {
  if (!isSecretsKey(key_hex))
    throw std::invalid_argument(
        "projects.secrets_key must be 64 hexadecimal characters (32 bytes)");
  for (size_t i = 0; i < sizeof key_; ++i)
    key_[i] =
        static_cast<unsigned char>(hexValue(key_hex[2 * i]) << 4 | hexValue(key_hex[2 * i + 1]));
}

SecretBox::~SecretBox() {
  OPENSSL_cleanse(key_, sizeof key_);
}

std::string SecretBox::seal(std::string_view plaintext, std::string_view associated) const {
  std::string out(kHeaderSize + plaintext.size() + kTagSize, '\0');
  auto* raw = reinterpret_cast<unsigned char*>(out.data());
  raw[0] = kVersion;
  unsigned char* nonce = raw + 1;
  unsigned char* cipher = raw + kHeaderSize;
  if (RAND_bytes(nonce, int(kNonceSize)) != 1)
    throw std::runtime_error("OpenSSL could not produce random bytes");

  CipherCtx ctx = newCtx();
  int len = 0;
  bool ok = EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) == 1 &&
            EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, int(kNonceSize), nullptr) == 1 &&
            EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, key_, nonce) == 1 &&
            EVP_EncryptUpdate(ctx.get(), nullptr, &len, bytes(associated),
                              checkedLength(associated.size())) == 1 &&
            EVP_EncryptUpdate(ctx.get(), cipher, &len, bytes(plaintext),
                              checkedLength(plaintext.size())) == 1 &&
            size_t(len) == plaintext.size() &&
            EVP_EncryptFinal_ex(ctx.get(), cipher + len, &len) == 1 && len == 0 &&
            EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, int(kTagSize),
                                cipher + plaintext.size()) == 1;
  if (!ok) throw std::runtime_error("OpenSSL could not encrypt the secret");
  return base64Encode(out);
}

std::string SecretBox::open(std::string_view sealed, std::string_view associated) const {
  std::optional<std::string> raw = base64Decode(sealed);
  if (!raw || raw->size() < kHeaderSize + kTagSize || (unsigned char)(*raw)[0] != kVersion)
    throw std::runtime_error(kOpenFailed);
  const auto* data = reinterpret_cast<const unsigned char*>(raw->data());
  const unsigned char* nonce = data + 1;
  const unsigned char* cipher = data + kHeaderSize;
  size_t cipher_size = raw->size() - kHeaderSize - kTagSize;
  // The tag is an input here; OpenSSL's ctrl takes a non-const pointer, so copy it.
  unsigned char tag[kTagSize];
  std::copy(cipher + cipher_size, cipher + cipher_size + kTagSize, tag);

  std::string plain(cipher_size, '\0');
  auto* out = reinterpret_cast<unsigned char*>(plain.data());
  CipherCtx ctx = newCtx();
  int len = 0;
  int final_len = 0;
  bool ok = EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) == 1 &&
            EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, int(kNonceSize), nullptr) == 1 &&
            EVP_DecryptInit_ex(ctx.get(), nullptr, nullptr, key_, nonce) == 1 &&
            EVP_DecryptUpdate(ctx.get(), nullptr, &len, bytes(associated),
                              checkedLength(associated.size())) == 1 &&
            EVP_DecryptUpdate(ctx.get(), out, &len, cipher, checkedLength(cipher_size)) == 1 &&
            size_t(len) == cipher_size &&
            EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, int(kTagSize), tag) == 1 &&
            EVP_DecryptFinal_ex(ctx.get(), out + len, &final_len) == 1 && final_len == 0;
  if (!ok) {
    // Unauthenticated plaintext must not linger in freed memory.
    OPENSSL_cleanse(plain.data(), plain.size());
    throw std::runtime_error(kOpenFailed);
  }
  return plain;
}

}  // namespace berth::projects
