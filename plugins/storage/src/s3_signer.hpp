// AWS Signature Version 4 for S3, written out step by step: the canonical request, the string
// to sign, the signing key and the Authorization header. libcurl signs the requests the S3
// backend sends (CURLOPT_AWS_SIGV4); this is the independent check of what it signs (the tests
// recompute curl's signature from the bytes it sent, and check this code against AWS's
// published examples), and what a presigned URL would be built with.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth::storage::sigv4 {

// The SHA-256 of the empty payload (a GET, a DELETE).
inline constexpr std::string_view kEmptyPayloadHash =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// RFC 3986 percent-encoding as SigV4 wants it: unreserved characters (A-Z a-z 0-9 - . _ ~)
// stay, every other byte is %XX in upper-case hex; '/' stays when `keep_slash` (a path).
std::string uriEncode(std::string_view text, bool keep_slash);

struct Request {
  std::string method;                                        // GET, PUT, ...
  std::string path;                                          // decoded, starting with '/'
  std::vector<std::pair<std::string, std::string>> query;    // decoded names and values
  std::vector<std::pair<std::string, std::string>> headers;  // every signed header, any case
  std::string payload_hash;                                  // hex SHA-256, or UNSIGNED-PAYLOAD
};

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
};

struct Scope {
  std::string date;     // YYYYMMDD
  std::string region;   // us-east-1
  std::string service;  // s3
  std::string text() const { return date + "/" + region + "/" + service + "/aws4_request"; }
};

// "host;range;x-amz-date": the header names, lower case, sorted.
std::string signedHeaders(const Request& request);
// The six lines of the canonical request.
std::string canonicalRequest(const Request& request);
// "AWS4-HMAC-SHA256\n<amz date>\n<scope>\n<hex SHA-256 of the canonical request>".
std::string stringToSign(const std::string& amz_date, const Scope& scope,
                         const std::string& canonical_request);
// Hex HMAC-SHA256 of the string to sign with the key derived from the secret and the scope.
std::string signature(const Credentials& credentials, const Scope& scope,
                      const std::string& string_to_sign);
// The whole Authorization header value for a request whose x-amz-date is `amz_date`
// (YYYYMMDDTHHMMSSZ).
std::string authorization(const Request& request, const Credentials& credentials,
                          const std::string& amz_date, const std::string& region,
                          const std::string& service = "s3");

}  // namespace berth::storage::sigv4
