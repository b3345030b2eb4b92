// The SDK's percent decoding: never reads past the input, refuses every malformed escape, and
// undoes percent encoding exactly (encoding any bytes and decoding them gives them back).
#include <berth/util/percent_decode.hpp>

#include <cstdint>
#include <string>

#include "support/fuzz_check.hpp"

namespace {

std::string encodeEvery(std::string_view bytes) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : bytes) {
    out += '%';
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto text = berth::fuzz::asText(data, size);
  const auto path = berth::percentDecode(text);
  const auto query = berth::percentDecode(text, true);
  berth::fuzz::check(path.has_value() == query.has_value(),
                     "'+' as a space changed whether the text decodes");
  if (path) berth::fuzz::check(path->size() <= text.size(), "decoding made the text longer");
  const auto round_trip = berth::percentDecode(encodeEvery(text));
  berth::fuzz::check(round_trip && *round_trip == text, "encoding then decoding lost bytes");
  return 0;
}
