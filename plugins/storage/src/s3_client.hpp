// A small S3 client over libcurl: the five calls the S3 backend needs (PutObject streamed from
// a file, GetObject of a range or into a file, DeleteObject, ListObjectsV2), each signed by
// libcurl (CURLOPT_AWS_SIGV4) with the payload's SHA-256 in x-amz-content-sha256, which this
// curl (7.88) does not compute itself but uses when it is given.
//
// Every call either does what it says or throws S3Error: a status that is not 2xx (with the
// store's error code), a connection refused, a timeout, a stall. Transport failures and 5xx
// are retried twice with a short pause (every call is idempotent: objects are written once
// under new names).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "blob_backend.hpp"
#include "s3_config.hpp"

namespace berth::storage {

class S3Error : public BackendError {
 public:
  S3Error(const std::string& what, long status) : BackendError(what), status_(status) {}
  long status() const { return status_; }  // 0: no answer (refused, timeout, ...)

 private:
  long status_;
};

struct S3Listing {
  struct Entry {
    std::string key;
    int64_t modified = 0;  // Unix seconds
    uint64_t size = 0;
  };
  std::vector<Entry> objects;
  std::vector<std::string> prefixes;  // CommonPrefixes, with a delimiter
  std::optional<std::string> next;    // continuation token when truncated
};

struct S3Object {
  uint64_t size = 0;
  std::string sha256;  // x-amz-meta-sha256 as stored by put(), empty when absent
};

class S3Client {
 public:
  explicit S3Client(S3Settings settings);

  // PutObject of the whole file at `path`, whose size and SHA-256 (hex) the caller measured:
  // streamed from the file with a known Content-Length, the hash sent as
  // x-amz-content-sha256 (the store refuses a body that does not match) and kept as
  // x-amz-meta-sha256.
  void put(const std::string& key, const std::string& path, uint64_t size,
           const std::string& sha256);
  // PutObject of bytes in memory.
  void putBytes(const std::string& key, std::string_view bytes, const std::string& sha256);
  // GetObject of `length` bytes from `offset` (a ranged GET; fewer at the end).
  std::string getRange(const std::string& key, uint64_t offset, uint64_t length) const;
  // GetObject of the whole object, each piece handed to `sink` as it arrives.
  S3Object getTo(const std::string& key,
                 const std::function<void(const char*, size_t)>& sink) const;
  // DeleteObject; an absent object is fine (S3 answers 204 either way).
  void remove(const std::string& key) const;
  // One page of ListObjectsV2.
  S3Listing list(const std::string& prefix, const std::string& delimiter,
                 const std::optional<std::string>& continuation) const;

  const S3Settings& settings() const { return settings_; }
  // The URL of an object (or of the bucket, for an empty key), with the key encoded.
  std::string url(const std::string& key) const;

 private:
  S3Settings settings_;
};

// "2026-11-26T16:37:05.000Z" -> Unix seconds; 0 when it cannot be read.
int64_t parseS3Time(const std::string& text);

}  // namespace berth::storage
