#include "query_values.hpp"

#include <cctype>
#include <cstring>

#include <berth/util/json_text.hpp>

namespace berth::sqlconsole {
namespace {

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// JSON's number grammar (RFC 8259): -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?
bool isJsonNumber(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  if (i < n && s[i] == '-') ++i;
  if (i >= n) return false;
  if (s[i] == '0') {
    ++i;
  } else if (isDigit(s[i])) {
    while (i < n && isDigit(s[i])) ++i;
  } else {
    return false;
  }
  if (i < n && s[i] == '.') {
    ++i;
    if (i >= n || !isDigit(s[i])) return false;
    while (i < n && isDigit(s[i])) ++i;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (i >= n || !isDigit(s[i])) return false;
    while (i < n && isDigit(s[i])) ++i;
  }
  return i == n;
}

void appendNumberOrString(std::string& out, std::string_view text) {
  if (isJsonNumber(text)) {
    out.append(text);
  } else {
    appendJsonString(out, text);  // NaN, Infinity, -Infinity
  }
}

void appendExactOrString(std::string& out, std::string_view text) {
  std::string number;
  if (exactInDouble(text, &number)) {
    out += number;
  } else {
    appendJsonString(out, text);
  }
}

bool digitsAt(std::string_view s, size_t at, size_t count) {
  if (at + count > s.size()) return false;
  for (size_t i = 0; i < count; ++i)
    if (!isDigit(s[at + i])) return false;
  return true;
}

// Parses PostgreSQL's array output ("{1,2,NULL}", "{{a,b},{c,d}}", "[0:1]={x,y}", quoted
// elements with backslash escapes) into JSON, converting each element by its type. Returns
// false (out unchanged) when the text does not follow that form.
class ArrayParser {
 public:
  ArrayParser(std::string_view text, uint32_t element) : text_(text), element_(element) {}

  bool parse(std::string& out) {
    if (!text_.empty() && text_[0] == '[') {  // dimension bounds come first when not 1-based
      const size_t eq = text_.find('=');
      if (eq == std::string_view::npos) return false;
      pos_ = eq + 1;
    }
    std::string json;
    if (!level(json) || pos_ != text_.size()) return false;
    out += json;
    return true;
  }

 private:
  bool level(std::string& out) {
    if (pos_ >= text_.size() || text_[pos_] != '{') return false;
    ++pos_;
    out.push_back('[');
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      out.push_back(']');
      return true;
    }
    for (bool first = true;; first = false) {
      if (!first) out.push_back(',');
      if (pos_ < text_.size() && text_[pos_] == '{') {
        if (!level(out)) return false;
      } else if (!element(out)) {
        return false;
      }
      if (pos_ >= text_.size()) return false;
      const char c = text_[pos_++];
      if (c == '}') break;
      if (c != ',') return false;
    }
    out.push_back(']');
    return true;
  }

  bool element(std::string& out) {
    std::string value;
    bool quoted = false;
    if (pos_ < text_.size() && text_[pos_] == '"') {
      quoted = true;
      ++pos_;
      for (;;) {
        if (pos_ >= text_.size()) return false;
        const char c = text_[pos_++];
        if (c == '"') break;
        if (c == '\\') {
          if (pos_ >= text_.size()) return false;
          value.push_back(text_[pos_++]);
        } else {
          value.push_back(c);
        }
      }
    } else {
      while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '}') {
        const char c = text_[pos_++];
        if (c == '\\') {
          if (pos_ >= text_.size()) return false;
          value.push_back(text_[pos_++]);
        } else if (c == '{' || c == '"') {
          return false;
        } else {
          value.push_back(c);
        }
      }
      if (value.empty()) return false;
    }
    if (!quoted && value.size() == 4 && strncasecmp(value.c_str(), "NULL", 4) == 0) {
      out += "null";
    } else {
      appendJsonValue(out, element_, value);
    }
    return true;
  }

  std::string_view text_;
  uint32_t element_;
  size_t pos_ = 0;
};

}  // namespace

bool exactInDouble(std::string_view decimal, std::string* json_number) {
  std::string_view s = decimal;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  const size_t dot = s.find('.');
  std::string_view whole = s.substr(0, dot);
  std::string_view fraction =
      dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  if (whole.empty() && fraction.empty()) return false;
  for (char c : whole)
    if (!isDigit(c)) return false;
  for (char c : fraction)
    if (!isDigit(c)) return false;
  while (whole.size() > 1 && whole[0] == '0') whole.remove_prefix(1);
  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  if (whole.empty()) whole = "0";

  bool fits = false;
  if (fraction.empty()) {
    // Integers: every one up to 2^53 has a double of its own.
    static constexpr std::string_view kTwoTo53 = "9007199254740992";
    fits = whole.size() < kTwoTo53.size() || (whole.size() == kTwoTo53.size() && whole <= kTwoTo53);
  } else {
    // Any decimal of at most 15 significant digits (DBL_DIG) comes back from a double as it
    // went in. Very large or very small magnitudes are left as strings.
    std::string digits;
    digits.append(whole == "0" ? std::string_view() : whole);
    digits.append(fraction);
    size_t leading = 0;
    while (leading < digits.size() && digits[leading] == '0') ++leading;
    size_t trailing = digits.size();
    while (trailing > leading && digits[trailing - 1] == '0') --trailing;
    fits = trailing - leading <= 15 && whole.size() <= 300 && leading <= 300;
  }
  if (!fits) return false;
  if (json_number != nullptr) {
    json_number->clear();
    const bool zero = whole == "0" && fraction.empty();
    if (negative && !zero) json_number->push_back('-');
    json_number->append(whole);
    if (!fraction.empty()) {
      json_number->push_back('.');
      json_number->append(fraction);
    }
  }
  return true;
}

std::string isoDateTime(std::string_view text, bool has_date) {
  // [YYYY-MM-DD ]HH:MM:SS[.f+][(+|-)HH[:MM[:SS]]]
  size_t i = 0;
  std::string out;
  if (has_date) {
    if (!digitsAt(text, 0, 4) || text.size() < 11 || text[4] != '-' || !digitsAt(text, 5, 2) ||
        text[7] != '-' || !digitsAt(text, 8, 2) || text[10] != ' ')
      return std::string(text);
    out.append(text.substr(0, 10));
    out.push_back('T');
    i = 11;
  }
  if (!digitsAt(text, i, 2) || i + 8 > text.size() || text[i + 2] != ':' ||
      !digitsAt(text, i + 3, 2) || text[i + 5] != ':' || !digitsAt(text, i + 6, 2))
    return std::string(text);
  const size_t time_start = i;
  i += 8;
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (!digitsAt(text, i, 1)) return std::string(text);
    while (i < text.size() && isDigit(text[i])) ++i;
  }
  out.append(text.substr(time_start, i - time_start));
  if (i == text.size()) return out;
  if ((text[i] != '+' && text[i] != '-') || !digitsAt(text, i + 1, 2)) return std::string(text);
  const std::string_view zone = text.substr(i);
  if (zone.size() == 3) {
    out.append(zone);
    out += ":00";
  } else if (zone.size() == 6 && zone[3] == ':' && digitsAt(zone, 4, 2)) {
    out.append(zone);
  } else {
    return std::string(text);  // an offset with seconds has no ISO 8601 form
  }
  return out;
}

uint32_t arrayElementType(uint32_t array_oid) {
  switch (array_oid) {
    case 1000:
      return pgtype::kBool;
    case 1001:
      return pgtype::kBytea;
    case 1002:
      return pgtype::kChar;
    case 1003:
      return pgtype::kName;
    case 1005:
      return pgtype::kInt2;
    case 1007:
      return pgtype::kInt4;
    case 1009:
      return pgtype::kText;
    case 1014:
      return pgtype::kBpchar;
    case 1015:
      return pgtype::kVarchar;
    case 1016:
      return pgtype::kInt8;
    case 1021:
      return pgtype::kFloat4;
    case 1022:
      return pgtype::kFloat8;
    case 1028:
      return pgtype::kOid;
    case 1115:
      return pgtype::kTimestamp;
    case 1182:
      return pgtype::kDate;
    case 1183:
      return pgtype::kTime;
    case 1185:
      return pgtype::kTimestamptz;
    case 1187:
      return pgtype::kInterval;
    case 1231:
      return pgtype::kNumeric;
    case 1270:
      return pgtype::kTimetz;
    case 199:
      return pgtype::kJson;
    case 2951:
      return pgtype::kUuid;
    case 3807:
      return pgtype::kJsonb;
    default:
      return 0;
  }
}

void appendJsonValue(std::string& out, uint32_t type_oid, std::string_view text) {
  switch (type_oid) {
    case pgtype::kBool:
      if (text == "t") {
        out += "true";
      } else if (text == "f") {
        out += "false";
      } else {
        appendJsonString(out, text);
      }
      return;
    case pgtype::kInt2:
    case pgtype::kInt4:
    case pgtype::kOid:
    case pgtype::kFloat4:
    case pgtype::kFloat8:
      appendNumberOrString(out, text);
      return;
    case pgtype::kInt8:
    case pgtype::kNumeric:
      appendExactOrString(out, text);
      return;
    case pgtype::kJson:
    case pgtype::kJsonb:
      // The database only stores valid JSON in these types; it goes in as it is, so nothing
      // (not even a number too long for a double) is changed on the way.
      if (text.empty()) {
        out += "null";
      } else {
        out.append(text);
      }
      return;
    case pgtype::kTimestamp:
    case pgtype::kTimestamptz:
      appendJsonString(out, isoDateTime(text, true));
      return;
    case pgtype::kTimetz:
      appendJsonString(out, isoDateTime(text, false));
      return;
    default:
      break;
  }
  if (const uint32_t element = arrayElementType(type_oid); element != 0) {
    if (ArrayParser(text, element).parse(out)) return;
  }
  appendJsonString(out, text);
}

}  // namespace berth::sqlconsole
