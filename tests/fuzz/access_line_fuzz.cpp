// The edge's access-log line reader (berth/util/access_line.hpp), which berthd and the runtime
// plugin run on every line nginx writes:
// - any text: no crash, and a refused line leaves the entry it was given untouched; an accepted
//   one has a request id, and its text members read as a JSON parser (nlohmann) reads them
//   whenever the text is JSON;
// - a round trip: fields (those the input parsed to, or else pieces of the input) written the
//   way nginx's log_format berth_<edge> escape=json writes them (core/src/edge/nginx_config.cpp)
//   read back to the same fields.
#include <berth/util/access_line.hpp>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/fuzz_check.hpp"

namespace {

// nginx's escape=json (ngx_escape_json): quote and backslash escaped, control bytes as \n, \r,
// \t, \b, \f or \u00xx, every other byte (UTF-8 or not) as it is.
std::string nginxJson(std::string_view text) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

// nginx's %T.%03M, as $request_time and $msec print.
std::string milliseconds(uint64_t ms) {
  std::string fraction = std::to_string(ms % 1000);
  return std::to_string(ms / 1000) + "." + std::string(3 - fraction.size(), '0') + fraction;
}

struct Written {
  berth::AccessLine fields;
  uint64_t seconds_ms = 0;  // what nginx knows: whole milliseconds
  uint64_t at_ms = 0;
};

std::string nginxLine(const Written& w) {
  const berth::AccessLine& f = w.fields;
  std::string status = std::to_string(f.status);  // $status: %03ui
  status = std::string(status.size() < 3 ? 3 - status.size() : 0, '0') + status;
  return "{\"request_id\":\"" + nginxJson(f.request_id) + "\",\"host\":\"" + nginxJson(f.host) +
         "\",\"method\":\"" + nginxJson(f.method) + "\",\"path\":\"" + nginxJson(f.path) +
         "\",\"status\":" + status + ",\"seconds\":" + milliseconds(w.seconds_ms) +
         ",\"bytes\":" + std::to_string(f.bytes_sent) + ",\"edge\":\"" + nginxJson(f.edge) +
         "\",\"remote\":\"" + nginxJson(f.remote) + "\",\"at\":" + milliseconds(w.at_ms) + "}";
}

uint64_t hashOf(std::string_view text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Fields as nginx could write them: from an accepted line (numbers brought into nginx's
// ranges), or else from the input's pieces between newlines.
Written fieldsFor(std::string_view input, const berth::AccessLine* parsed) {
  Written w;
  const uint64_t h = hashOf(input);
  if (parsed != nullptr) {
    w.fields = *parsed;
  } else {
    std::vector<std::string> pieces;
    size_t start = 0;
    while (pieces.size() < 6) {
      size_t nl = input.find('\n', start);
      pieces.emplace_back(input.substr(start, nl == std::string_view::npos ? nl : nl - start));
      if (nl == std::string_view::npos) break;
      start = nl + 1;
    }
    pieces.resize(6);
    w.fields.request_id = pieces[0].empty() ? "x" : pieces[0];  // never empty in nginx's form
    w.fields.host = pieces[1];
    w.fields.method = pieces[2];
    w.fields.path = pieces[3];
    w.fields.edge = pieces[4];
    w.fields.remote = pieces[5];
    w.fields.status = static_cast<int>(h % 1000);
    w.fields.bytes_sent = h >> 3;
  }
  w.fields.status = std::abs(w.fields.status % 1000);
  w.seconds_ms = (h >> 10) % (uint64_t{1} << 32);
  w.at_ms = (h >> 20) % (uint64_t{1} << 43);  // up to year 2248
  w.fields.seconds = static_cast<double>(w.seconds_ms) / 1000;
  w.fields.at = static_cast<int64_t>(w.at_ms / 1000);
  return w;
}

void checkRoundTrip(const Written& w) {
  const std::string line = nginxLine(w);
  berth::AccessLine back;
  berth::fuzz::check(berth::parseAccessLine(line, back), "nginx's form of fields refused", line);
  const berth::AccessLine& f = w.fields;
  bool same = back.request_id == f.request_id && back.host == f.host && back.method == f.method &&
              back.path == f.path && back.edge == f.edge && back.remote == f.remote &&
              back.status == f.status && back.bytes_sent == f.bytes_sent && back.at == f.at &&
              std::fabs(back.seconds - f.seconds) <= 1e-9 * std::max(1.0, f.seconds);
  berth::fuzz::check(same, "nginx's form of fields read back differently", line);
}

// Where the text is JSON, the text members read as a JSON parser reads them.
void checkAgainstJson(std::string_view text, const berth::AccessLine& entry) {
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return;
  const std::pair<const char*, const std::string*> members[] = {{"request_id", &entry.request_id},
                                                                {"host", &entry.host},
                                                                {"method", &entry.method},
                                                                {"path", &entry.path},
                                                                {"edge", &entry.edge},
                                                                {"remote", &entry.remote}};
  for (const auto& [key, value] : members) {
    auto found = json.find(key);
    if (found != json.end() && found->is_string())
      berth::fuzz::check(found->get<std::string>() == *value,
                         "a text member reads unlike a JSON parser reads it",
                         std::string(key) + " in " + std::string(text));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 8192) return 0;
  const std::string_view text = berth::fuzz::asText(data, size);
  berth::AccessLine entry;
  entry.request_id = "untouched";
  entry.status = -7;
  if (berth::parseAccessLine(text, entry)) {
    berth::fuzz::check(!entry.request_id.empty(), "accepted without a request id",
                       std::string(text));
    checkAgainstJson(text, entry);
    checkRoundTrip(fieldsFor(text, &entry));
  } else {
    berth::fuzz::check(entry.request_id == "untouched" && entry.status == -7 && entry.host.empty(),
                       "a refused line changed the entry", std::string(text));
    checkRoundTrip(fieldsFor(text, nullptr));
  }
  return 0;
}
