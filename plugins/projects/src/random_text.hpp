// Random identifiers and keys from OpenSSL's secure generator, without modulo bias.
#pragma once
#include <cstdint>
#include <string>

namespace berth::projects {

std::string randomLowerAlnum(size_t length);  // [a-z0-9]: project ids, domain tokens
std::string randomHexKey(size_t bytes);       // lower-case hex of `bytes` random bytes

// Unix seconds now.
int64_t nowSeconds();

}  // namespace berth::projects
