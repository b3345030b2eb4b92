#include "rest_prefer.hpp"

#include <berth/common/text.hpp>

#include <string>

namespace berth::sqlconsole {

Preferences parsePrefer(std::string_view header) {
  Preferences out;
  while (!header.empty()) {
    size_t comma = header.find(',');
    std::string_view item = common::trimmedView(header.substr(0, comma));
    header = comma == std::string_view::npos ? std::string_view() : header.substr(comma + 1);
    // Parameters after ";" do not change what these preferences mean.
    item = common::trimmedView(item.substr(0, item.find(';')));
    if (item == "return=representation")
      out.return_ = ReturnPreference::Representation;
    else if (item == "return=minimal")
      out.return_ = ReturnPreference::Minimal;
    else if (item == "return=headers-only")
      out.return_ = ReturnPreference::HeadersOnly;
    else if (item == "count=exact" || item == "count=planned" || item == "count=estimated")
      out.count = true;
    else if (item == "resolution=merge-duplicates")
      out.resolution = ResolutionPreference::MergeDuplicates;
    else if (item == "resolution=ignore-duplicates")
      out.resolution = ResolutionPreference::IgnoreDuplicates;
  }
  return out;
}

}  // namespace berth::sqlconsole
