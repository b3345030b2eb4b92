#include "cors.hpp"

namespace berth::sqlconsole {
namespace {

constexpr const char* kAllowedHeaders =
    "apikey, authorization, content-type, prefer, range, x-client-info, accept-profile, "
    "content-profile, accept, x-retry-count";

// A header list as browsers send it: tokens separated by commas and spaces. Anything else is
// not echoed back.
bool isHeaderList(const std::string& value) {
  if (value.size() > 1024) return false;
  for (char c : value) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == ',' || c == ' ';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

berth::Headers corsHeaders() {
  return {{"Access-Control-Allow-Origin", "*"},
          {"Access-Control-Expose-Headers", "Content-Range, Content-Location, Preference-Applied"}};
}

berth::Headers preflightHeaders(const berth::Request& request) {
  std::string allowed = kAllowedHeaders;
  std::optional<std::string> asked = request.header("access-control-request-headers");
  if (asked && !asked->empty() && isHeaderList(*asked)) allowed += ", " + *asked;
  berth::Headers headers = corsHeaders();
  headers.emplace_back("Access-Control-Allow-Methods", "GET, HEAD, POST, PATCH, DELETE, OPTIONS");
  headers.emplace_back("Access-Control-Allow-Headers", allowed);
  headers.emplace_back("Access-Control-Max-Age", "86400");
  return headers;
}

}  // namespace berth::sqlconsole
