#include "secret_box.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <stdexcept>
#include <string>

using berth::projects::isSecretsKey;
using berth::projects::SecretBox;

namespace {

const std::string kKey = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const std::string kOtherKey = "F00102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F";
const std::string kAad = "project-42/DATABASE_URL";

constexpr const char* kOpenFailed = "the secret could not be decrypted";

void expectOpenFails(const SecretBox& box, const std::string& sealed, const std::string& aad) {
  try {
    std::string plain = box.open(sealed, aad);
    ADD_FAILURE() << "opened an altered value: " << sealed;
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), kOpenFailed);
  }
}

std::string allByteValues() {
  std::string s;
  for (int i = 0; i < 256; ++i) s += static_cast<char>(i);
  return s;
}

// Standard padded base64, independent of the implementation under test.
const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string encodeBase64(const std::string& raw) {
  std::string text;
  for (size_t j = 0; j < raw.size(); j += 3) {
    unsigned v = static_cast<unsigned char>(raw[j]) << 16;
    if (j + 1 < raw.size()) v |= static_cast<unsigned char>(raw[j + 1]) << 8;
    if (j + 2 < raw.size()) v |= static_cast<unsigned char>(raw[j + 2]);
    text += kAlphabet[v >> 18 & 63];
    text += kAlphabet[v >> 12 & 63];
    text += j + 1 < raw.size() ? kAlphabet[v >> 6 & 63] : '=';
    text += j + 2 < raw.size() ? kAlphabet[v & 63] : '=';
  }
  return text;
}

std::string decodeBase64(const std::string& text) {
  std::string out;
  unsigned value = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    auto pos = kAlphabet.find(c);
    if (pos == std::string::npos) throw std::invalid_argument("not base64");
    value = value << 6 | unsigned(pos);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>(value >> bits & 0xff);
    }
  }
  return out;
}

}  // namespace

TEST(SecretBox, RoundTripsValuesOfEverySize) {
  SecretBox box(kKey);
  std::string megabyte(1 << 20, '\0');
  for (size_t i = 0; i < megabyte.size(); ++i) megabyte[i] = static_cast<char>(i * 131 + 7);
  for (const std::string& plain :
       {std::string(), std::string("x"), std::string(1, '\0'), std::string("ab"),
        std::string("abc"), allByteValues(), megabyte}) {
    std::string sealed = box.seal(plain, kAad);
    EXPECT_EQ(box.open(sealed, kAad), plain) << "size " << plain.size();
  }
}

TEST(SecretBox, SealedFormatIsBase64OfVersionNonceCiphertextTag) {
  SecretBox box(kKey);
  for (size_t size : {0u, 1u, 2u, 3u, 4u, 100u}) {
    std::string sealed = box.seal(std::string(size, 'p'), kAad);
    EXPECT_EQ(sealed.size() % 4, 0u);
    EXPECT_EQ(sealed.find_first_not_of(kAlphabet + "="), std::string::npos);
    std::string raw = decodeBase64(sealed);
    ASSERT_EQ(raw.size(), 1 + 12 + size + 16);
    EXPECT_EQ(static_cast<unsigned char>(raw[0]), 0x01);
    // The plaintext must not appear as is.
    if (size >= 4) {
      EXPECT_EQ(raw.find(std::string(size, 'p')), std::string::npos);
    }
  }
}

TEST(SecretBox, SealingTwiceGivesDifferentText) {
  SecretBox box(kKey);
  std::string a = box.seal("same value", kAad);
  std::string b = box.seal("same value", kAad);
  EXPECT_NE(a, b);
  // Different nonces, not just different encodings of one.
  EXPECT_NE(decodeBase64(a).substr(1, 12), decodeBase64(b).substr(1, 12));
  EXPECT_EQ(box.open(a, kAad), "same value");
  EXPECT_EQ(box.open(b, kAad), "same value");
}

TEST(SecretBox, AnotherKeyCannotOpen) {
  SecretBox box(kKey);
  SecretBox other(kOtherKey);
  std::string sealed = box.seal("s3cret", kAad);
  expectOpenFails(other, sealed, kAad);
}

TEST(SecretBox, KeyHexIsCaseInsensitive) {
  std::string upper = kKey;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  SecretBox lower_box(kKey);
  SecretBox upper_box(upper);
  EXPECT_EQ(upper_box.open(lower_box.seal("v", kAad), kAad), "v");
}

TEST(SecretBox, AssociatedDataIsBound) {
  SecretBox box(kKey);
  std::string sealed = box.seal("s3cret", kAad);
  expectOpenFails(box, sealed, "project-43/DATABASE_URL");
  expectOpenFails(box, sealed, "");
  expectOpenFails(box, sealed, kAad + "x");
  std::string no_aad = box.seal("s3cret", "");
  EXPECT_EQ(box.open(no_aad, ""), "s3cret");
  expectOpenFails(box, no_aad, kAad);
}

TEST(SecretBox, EveryFlippedByteFails) {
  SecretBox box(kKey);
  std::string sealed = box.seal("flip me, any byte", kAad);
  std::string raw = decodeBase64(sealed);
  for (size_t i = 0; i < raw.size(); ++i) {
    for (unsigned char mask : {0x01, 0x80, 0xff}) {
      std::string altered = raw;
      altered[i] = static_cast<char>(altered[i] ^ mask);
      std::string text = encodeBase64(altered);
      ASSERT_EQ(decodeBase64(text), altered);
      SCOPED_TRACE("byte " + std::to_string(i) + " mask " + std::to_string(mask));
      expectOpenFails(box, text, kAad);
    }
  }
}

TEST(SecretBox, EveryAlteredCharacterOfTheTextFails) {
  SecretBox box(kKey);
  std::string sealed = box.seal("text level", kAad);
  for (size_t i = 0; i < sealed.size(); ++i) {
    for (char replacement : {'A', '/', '=', ' ', '\n', '*'}) {
      if (sealed[i] == replacement) continue;
      std::string altered = sealed;
      altered[i] = replacement;
      SCOPED_TRACE("character " + std::to_string(i) + " -> " + std::string(1, replacement));
      expectOpenFails(box, altered, kAad);
    }
  }
}

TEST(SecretBox, TruncatedOrGarbageFails) {
  SecretBox box(kKey);
  std::string sealed = box.seal("truncate me", kAad);
  for (size_t len = 0; len < sealed.size(); ++len) {
    SCOPED_TRACE("length " + std::to_string(len));
    expectOpenFails(box, sealed.substr(0, len), kAad);
  }
  expectOpenFails(box, sealed + "AAAA", kAad);
  expectOpenFails(box, "not base64 at all!", kAad);
  expectOpenFails(box, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", kAad);  // version 0
  expectOpenFails(box, sealed + "\n", kAad);
}

TEST(SecretBox, WrongVersionFails) {
  SecretBox box(kKey);
  // A value whose only fault is its version byte: the rest is a valid seal.
  std::string raw = decodeBase64(box.seal("v", kAad));
  raw[0] = 0x02;
  std::string text = encodeBase64(raw);
  ASSERT_EQ(decodeBase64(text), raw);
  expectOpenFails(box, text, kAad);
}

TEST(SecretBox, KeyValidation) {
  EXPECT_TRUE(isSecretsKey(kKey));
  EXPECT_TRUE(isSecretsKey(kOtherKey));
  EXPECT_TRUE(isSecretsKey(std::string(64, 'f')));
  EXPECT_FALSE(isSecretsKey(""));
  EXPECT_FALSE(isSecretsKey(kKey.substr(0, 63)));
  EXPECT_FALSE(isSecretsKey(kKey + "0"));
  EXPECT_FALSE(isSecretsKey(std::string(32, 'a')));
  EXPECT_FALSE(isSecretsKey(std::string(63, 'a') + "g"));
  EXPECT_FALSE(isSecretsKey(std::string(63, 'a') + " "));
  EXPECT_FALSE(isSecretsKey(" " + std::string(63, 'a')));
  EXPECT_FALSE(isSecretsKey("0x" + std::string(62, 'a')));
  EXPECT_FALSE(isSecretsKey(std::string(63, 'a') + std::string(1, '\0')));

  for (const std::string& bad : {std::string(), kKey.substr(1), std::string(64, 'z')}) {
    try {
      SecretBox box(bad);
      ADD_FAILURE() << "accepted key \"" << bad << "\"";
    } catch (const std::invalid_argument& e) {
      EXPECT_STREQ(e.what(), "projects.secrets_key must be 64 hexadecimal characters (32 bytes)");
    }
  }
}

TEST(SecretBox, TheKeyBytesAreTheHexDigits) {
  // Keys differing in one nibble must not be interchangeable (the hex is really decoded).
  std::string sealed = SecretBox(kKey).seal("v", kAad);
  for (size_t i = 0; i < kKey.size(); ++i) {
    std::string key = kKey;
    key[i] = key[i] == '0' ? '1' : '0';
    SCOPED_TRACE("digit " + std::to_string(i));
    expectOpenFails(SecretBox(key), sealed, kAad);
  }
}
