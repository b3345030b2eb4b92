#include "percent_decode.hpp"

#include <berth/util/percent_decode.hpp>

namespace berth::runtime {

std::optional<std::string> percentDecodePath(std::string_view raw) {
  std::optional<std::string> out = berth::percentDecode(raw);
  if (out && out->find('\0') != std::string::npos) return std::nullopt;
  return out;
}

}  // namespace berth::runtime
