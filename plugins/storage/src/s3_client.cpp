#include "s3_client.hpp"

#include <curl/curl.h>
#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <thread>
#include <utility>

namespace berth::storage {

namespace {

constexpr int kAttempts = 3;
constexpr size_t kErrorBodyLimit = 4096;  // an error's XML is short; a body is never kept

void globalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The text of the first <tag>...</tag> at or after `from`; `from` moves past it.
std::optional<std::string> element(const std::string& xml, const std::string& tag, size_t& from) {
  std::string open = "<" + tag + ">";
  std::string close = "</" + tag + ">";
  size_t start = xml.find(open, from);
  if (start == std::string::npos) return std::nullopt;
  start += open.size();
  size_t end = xml.find(close, start);
  if (end == std::string::npos) return std::nullopt;
  from = end + close.size();
  return xml.substr(start, end - start);
}

std::string firstElement(const std::string& xml, const std::string& tag) {
  size_t from = 0;
  return element(xml, tag, from).value_or("");
}

// The five entities XML escapes (S3 lists keys as XML text).
std::string unescapeXml(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out += text[i];
      continue;
    }
    static const std::pair<const char*, char> kEntities[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    bool done = false;
    for (const auto& [entity, c] : kEntities)
      if (text.compare(i, std::char_traits<char>::length(entity), entity) == 0) {
        out += c;
        i += std::char_traits<char>::length(entity) - 1;
        done = true;
        break;
      }
    if (!done) out += '&';
  }
  return out;
}

// One HTTP exchange with the store.
struct Call {
  const char* method = "GET";
  std::string url;
  std::vector<std::string> headers;
  // The body sent: a file (read with pread from 0) or bytes.
  int fd = -1;
  std::string_view bytes;
  uint64_t upload_size = 0;
  bool upload = false;
  // Where a 2xx body goes; without a sink it is kept in Answer::body.
  const std::function<void(const char*, size_t)>* sink = nullptr;
};

struct Answer {
  long status = 0;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower case

  std::string header(const std::string& name) const {
    for (const auto& [n, v] : headers)
      if (n == name) return v;
    return "";
  }
};

struct Progress {
  const Call* call = nullptr;
  CURL* curl = nullptr;
  Answer* answer = nullptr;
  uint64_t sent = 0;
  bool short_file = false;
};

size_t onRead(char* buffer, size_t size, size_t count, void* user) {
  auto* p = static_cast<Progress*>(user);
  size_t want = size * count;
  uint64_t left = p->call->upload_size - p->sent;
  if (want > left) want = static_cast<size_t>(left);
  if (want == 0) return 0;
  if (p->call->fd >= 0) {
    ssize_t got;
    do {
      got = ::pread(p->call->fd, buffer, want, static_cast<off_t>(p->sent));
    } while (got < 0 && errno == EINTR);
    if (got <= 0) {
      // The file shrank since it was measured: never send a short body as if it were whole.
      p->short_file = true;
      return CURL_READFUNC_ABORT;
    }
    p->sent += static_cast<uint64_t>(got);
    return static_cast<size_t>(got);
  }
  std::memcpy(buffer, p->call->bytes.data() + p->sent, want);
  p->sent += want;
  return want;
}

size_t onWrite(char* data, size_t size, size_t count, void* user) {
  auto* p = static_cast<Progress*>(user);
  size_t n = size * count;
  long status = 0;
  curl_easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, &status);
  if (p->call->sink != nullptr && status >= 200 && status < 300) {
    try {
      (*p->call->sink)(data, n);
    } catch (...) {
      return 0;  // aborts the transfer; the sink's owner knows why
    }
    return n;
  }
  if (p->call->sink == nullptr || p->answer->body.size() < kErrorBodyLimit)
    p->answer->body.append(data, n);
  return n;
}

size_t onHeader(char* data, size_t size, size_t count, void* user) {
  auto* p = static_cast<Progress*>(user);
  std::string line(data, size * count);
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string value = line.substr(colon + 1);
    size_t start = value.find_first_not_of(" \t");
    size_t end = value.find_last_not_of(" \t\r\n");
    value = start == std::string::npos ? "" : value.substr(start, end - start + 1);
    p->answer->headers.emplace_back(lower(line.substr(0, colon)), value);
  } else if (line.starts_with("HTTP/")) {
    p->answer->headers.clear();  // a 100 Continue's headers are not the answer's
  }
  return size * count;
}

Answer performOnce(const S3Settings& s, const Call& call) {
  CURL* curl = curl_easy_init();
  if (curl == nullptr) throw S3Error("curl_easy_init failed", 0);
  Answer answer;
  Progress progress{&call, curl, &answer};
  curl_slist* headers = nullptr;
  for (const auto& h : call.headers) headers = curl_slist_append(headers, h.c_str());
  std::string provider = "aws:amz:" + s.region + ":s3";
  char error[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(curl, CURLOPT_URL, call.url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, call.method);
  curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, provider.c_str());
  curl_easy_setopt(curl, CURLOPT_USERNAME, s.credentials.access_key_id.c_str());
  curl_easy_setopt(curl, CURLOPT_PASSWORD, s.credentials.secret_access_key.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, s.connect_timeout_seconds);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, s.stall_seconds);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, onWrite);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &progress);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, onHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &progress);
  if (std::string_view(call.method) == "HEAD") curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  if (call.upload) {
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, onRead);
    curl_easy_setopt(curl, CURLOPT_READDATA, &progress);
    curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(call.upload_size));
  }
  CURLcode code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
  curl_easy_cleanup(curl);
  curl_slist_free_all(headers);
  std::string where = std::string(call.method) + " " + call.url;
  if (progress.short_file) throw S3Error(where + ": the file got shorter while it was sent", 0);
  if (code != CURLE_OK) {
    // A write callback that refused (the sink failed) is the caller's error, not the store's.
    throw S3Error(where + ": " + (error[0] != '\0' ? error : curl_easy_strerror(code)),
                  code == CURLE_WRITE_ERROR ? -1 : 0);
  }
  if (answer.status < 200 || answer.status >= 300) {
    std::string code_text = firstElement(answer.body, "Code");
    std::string message = firstElement(answer.body, "Message");
    throw S3Error(where + ": the store answered " + std::to_string(answer.status) +
                      (code_text.empty() ? "" : " " + code_text) +
                      (message.empty() ? "" : ": " + message),
                  answer.status);
  }
  return answer;
}

// Transport failures and 5xx are worth another try; a 4xx (bad credentials, no such bucket)
// is not, nor a sink that refused.
Answer perform(const S3Settings& s, const Call& call, bool retry = true) {
  for (int attempt = 1;; ++attempt) {
    try {
      return performOnce(s, call);
    } catch (const S3Error& e) {
      bool transient = e.status() == 0 || e.status() >= 500;
      if (!retry || !transient || attempt >= kAttempts) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(200 * attempt * attempt));
    }
  }
}

}  // namespace

int64_t parseS3Time(const std::string& text) {
  std::tm tm{};
  if (text.size() < 19 ||
      std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
    return 0;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm));
}

S3Client::S3Client(S3Settings settings) : settings_(std::move(settings)) {
  globalInit();
  while (!settings_.endpoint.empty() && settings_.endpoint.back() == '/')
    settings_.endpoint.pop_back();
}

std::string S3Client::url(const std::string& key) const {
  std::string path = "/" + sigv4::uriEncode(key, true);
  if (settings_.path_style) return settings_.endpoint + "/" + settings_.bucket + path;
  size_t host = settings_.endpoint.find("//") + 2;
  return settings_.endpoint.substr(0, host) + settings_.bucket + "." +
         settings_.endpoint.substr(host) + path;
}

void S3Client::put(const std::string& key, const std::string& path, uint64_t size,
                   const std::string& sha256) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw BackendError("cannot open " + path + ": " + std::strerror(errno));
  Call call;
  call.method = "PUT";
  call.url = url(key);
  call.headers = {"Content-Type: application/octet-stream", "x-amz-content-sha256: " + sha256,
                  "x-amz-meta-sha256: " + sha256};
  call.fd = fd;
  call.upload_size = size;
  call.upload = true;
  try {
    perform(settings_, call);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

void S3Client::putBytes(const std::string& key, std::string_view bytes, const std::string& sha256) {
  Call call;
  call.method = "PUT";
  call.url = url(key);
  call.headers = {"Content-Type: application/octet-stream", "x-amz-content-sha256: " + sha256,
                  "x-amz-meta-sha256: " + sha256};
  call.bytes = bytes;
  call.upload_size = bytes.size();
  call.upload = true;
  perform(settings_, call);
}

std::string S3Client::getRange(const std::string& key, uint64_t offset, uint64_t length) const {
  if (length == 0) return "";
  Call call;
  call.url = url(key);
  call.headers = {
      "x-amz-content-sha256: " + std::string(sigv4::kEmptyPayloadHash),
      "Range: bytes=" + std::to_string(offset) + "-" + std::to_string(offset + length - 1)};
  Answer answer = perform(settings_, call);
  // A store that ignored the Range (200 with everything) is cut to what was asked.
  if (answer.status == 200 && offset > 0) {
    if (answer.body.size() <= offset) return "";
    answer.body = answer.body.substr(static_cast<size_t>(offset));
  }
  if (answer.body.size() > length) answer.body.resize(static_cast<size_t>(length));
  return std::move(answer.body);
}

S3Object S3Client::getTo(const std::string& key,
                         const std::function<void(const char*, size_t)>& sink) const {
  Call call;
  call.url = url(key);
  call.headers = {"x-amz-content-sha256: " + std::string(sigv4::kEmptyPayloadHash)};
  call.sink = &sink;
  // Not retried here: the sink has had part of the body; the caller starts over.
  Answer answer = perform(settings_, call, /*retry=*/false);
  S3Object object;
  object.size = std::strtoull(answer.header("content-length").c_str(), nullptr, 10);
  object.sha256 = answer.header("x-amz-meta-sha256");
  return object;
}

void S3Client::remove(const std::string& key) const {
  Call call;
  call.method = "DELETE";
  call.url = url(key);
  call.headers = {"x-amz-content-sha256: " + std::string(sigv4::kEmptyPayloadHash)};
  try {
    perform(settings_, call);
  } catch (const S3Error& e) {
    if (e.status() != 404) throw;  // some stores answer 404 for an absent key
  }
}

S3Listing S3Client::list(const std::string& prefix, const std::string& delimiter,
                         const std::optional<std::string>& continuation) const {
  // Already in SigV4's canonical form (names sorted, values encoded): curl 7.88 signs the
  // query string as it is given.
  std::string query;
  if (continuation) query += "continuation-token=" + sigv4::uriEncode(*continuation, false) + "&";
  if (!delimiter.empty()) query += "delimiter=" + sigv4::uriEncode(delimiter, false) + "&";
  query += "list-type=2&prefix=" + sigv4::uriEncode(prefix, false);
  Call call;
  call.url = url("") + "?" + query;
  call.headers = {"x-amz-content-sha256: " + std::string(sigv4::kEmptyPayloadHash)};
  Answer answer = perform(settings_, call);
  S3Listing listing;
  size_t from = 0;
  while (auto contents = element(answer.body, "Contents", from)) {
    S3Listing::Entry entry;
    entry.key = unescapeXml(firstElement(*contents, "Key"));
    entry.modified = parseS3Time(firstElement(*contents, "LastModified"));
    entry.size = std::strtoull(firstElement(*contents, "Size").c_str(), nullptr, 10);
    listing.objects.push_back(std::move(entry));
  }
  from = 0;
  while (auto common = element(answer.body, "CommonPrefixes", from))
    listing.prefixes.push_back(unescapeXml(firstElement(*common, "Prefix")));
  if (firstElement(answer.body, "IsTruncated") == "true") {
    std::string token = unescapeXml(firstElement(answer.body, "NextContinuationToken"));
    if (token.empty())
      throw S3Error("GET " + call.url + ": a truncated listing without a continuation token", 0);
    listing.next = token;
  }
  return listing;
}

}  // namespace berth::storage
