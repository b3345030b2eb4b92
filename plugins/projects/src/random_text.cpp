#include "random_text.hpp"

#include <openssl/rand.h>

#include <chrono>
#include <stdexcept>

namespace berth::projects {

namespace {
void fill(unsigned char* out, size_t n) {
  if (RAND_bytes(out, static_cast<int>(n)) != 1)
    throw std::runtime_error("no secure random source");
}
}  // namespace

std::string randomLowerAlnum(size_t length) {
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string out;
  unsigned char buf[64];
  while (out.size() < length) {
    fill(buf, sizeof buf);
    for (unsigned char b : buf)
      if (b < 252 && out.size() < length) out.push_back(alphabet[b % 36]);  // 252 = 7 * 36
  }
  return out;
}

std::string randomHexKey(size_t bytes) {
  static const char hex[] = "0123456789abcdef";
  std::string raw(bytes, '\0');
  fill(reinterpret_cast<unsigned char*>(raw.data()), bytes);
  std::string out;
  for (unsigned char c : raw) {
    out.push_back(hex[c >> 4]);
    out.push_back(hex[c & 15]);
  }
  return out;
}

int64_t nowSeconds() {
  using namespace std::chrono;
  return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace berth::projects
