#include "s3_signer.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>

#include "sha256.hpp"

namespace berth::storage::sigv4 {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Leading and trailing blanks go, runs of inner blanks become one space (SigV4's "trimall").
std::string trimAll(std::string_view value) {
  std::string out;
  bool blank = false;
  for (char c : value) {
    if (c == ' ' || c == '\t') {
      blank = !out.empty();
      continue;
    }
    if (blank) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

std::string hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &size);
  return std::string(reinterpret_cast<const char*>(out), size);
}

std::string hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> sortedHeaders(const Request& request) {
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& [name, value] : request.headers)
    headers.emplace_back(lower(name), trimAll(value));
  std::stable_sort(headers.begin(), headers.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return headers;
}

}  // namespace

std::string uriEncode(std::string_view text, bool keep_slash) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' ||
        (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kDigits[c >> 4];
      out += kDigits[c & 15];
    }
  }
  return out;
}

std::string signedHeaders(const Request& request) {
  std::string out;
  std::string last;
  for (const auto& [name, value] : sortedHeaders(request)) {
    if (name == last) continue;  // a repeated header is listed once
    if (!out.empty()) out += ';';
    out += name;
    last = name;
  }
  return out;
}

std::string canonicalRequest(const Request& request) {
  std::vector<std::pair<std::string, std::string>> query;
  for (const auto& [name, value] : request.query)
    query.emplace_back(uriEncode(name, false), uriEncode(value, false));
  std::sort(query.begin(), query.end());
  std::string query_text;
  for (const auto& [name, value] : query) {
    if (!query_text.empty()) query_text += '&';
    query_text += name + "=" + value;
  }
  // Repeated headers join their values with commas, in the order sent.
  std::string header_text;
  std::vector<std::pair<std::string, std::string>> headers = sortedHeaders(request);
  for (size_t i = 0; i < headers.size(); ++i) {
    if (i > 0 && headers[i].first == headers[i - 1].first) {
      header_text.back() = ',';
      header_text += headers[i].second + "\n";
      continue;
    }
    header_text += headers[i].first + ":" + headers[i].second + "\n";
  }
  return request.method + "\n" + uriEncode(request.path, true) + "\n" + query_text + "\n" +
         header_text + "\n" + signedHeaders(request) + "\n" + request.payload_hash;
}

std::string stringToSign(const std::string& amz_date, const Scope& scope,
                         const std::string& canonical_request) {
  return "AWS4-HMAC-SHA256\n" + amz_date + "\n" + scope.text() + "\n" +
         Sha256::of(canonical_request);
}

std::string signature(const Credentials& credentials, const Scope& scope,
                      const std::string& string_to_sign) {
  std::string key = hmac("AWS4" + credentials.secret_access_key, scope.date);
  key = hmac(key, scope.region);
  key = hmac(key, scope.service);
  key = hmac(key, "aws4_request");
  return hex(hmac(key, string_to_sign));
}

std::string authorization(const Request& request, const Credentials& credentials,
                          const std::string& amz_date, const std::string& region,
                          const std::string& service) {
  Scope scope{amz_date.substr(0, 8), region, service};
  std::string to_sign = stringToSign(amz_date, scope, canonicalRequest(request));
  return "AWS4-HMAC-SHA256 Credential=" + credentials.access_key_id + "/" + scope.text() +
         ",SignedHeaders=" + signedHeaders(request) +
         ",Signature=" + signature(credentials, scope, to_sign);
}

}  // namespace berth::storage::sigv4
