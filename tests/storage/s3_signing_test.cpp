// AWS Signature Version 4 as the S3 backend signs: our own signer (plugins/storage/src/
// s3_signer.hpp) against the examples AWS publishes for S3 (GET Object with a Range, PUT
// Object, GET Bucket lifecycle, ListObjects), and libcurl's CURLOPT_AWS_SIGV4 as Debian's curl
// (7.88) applies it, checked against our signer: the requests the backend sends are captured
// on a loopback socket and their signatures recomputed from the bytes curl sent, with the
// payload hash we set in x-amz-content-sha256 (a curl that signed another payload hash, or
// left our header unsigned, fails here).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <thread>

#include "s3_client.hpp"
#include "s3_config.hpp"
#include "s3_signer.hpp"
#include "sha256.hpp"

using namespace berth::storage;
namespace sigv4 = berth::storage::sigv4;

namespace {

// The examples' shared values (AWS S3 API reference, "Examples: Signature Calculations").
const sigv4::Credentials kExample{"AKIAIOSFODNN7EXAMPLE",
                                  "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"};
const std::string kDate = "20130524T000000Z";
const std::string kHost = "examplebucket.s3.amazonaws.com";

std::string signatureOf(const std::string& authorization) {
  size_t at = authorization.find("Signature=");
  return at == std::string::npos ? "" : authorization.substr(at + 10);
}

TEST(SigV4Examples, GetObjectWithRange) {
  sigv4::Request r{"GET",
                   "/test.txt",
                   {},
                   {{"Host", kHost},
                    {"Range", "bytes=0-9"},
                    {"x-amz-content-sha256", std::string(sigv4::kEmptyPayloadHash)},
                    {"x-amz-date", kDate}},
                   std::string(sigv4::kEmptyPayloadHash)};
  std::string canonical = sigv4::canonicalRequest(r);
  EXPECT_EQ(canonical,
            "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
            "x-amz-content-sha256:"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
            "x-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  sigv4::Scope scope{"20130524", "us-east-1", "s3"};
  EXPECT_EQ(sigv4::stringToSign(kDate, scope, canonical),
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(sigv4::authorization(r, kExample, kDate, "us-east-1"),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
            "aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature="
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4Examples, PutObject) {
  std::string payload = "Welcome to Amazon S3.";
  std::string hash = Sha256::of(payload);
  EXPECT_EQ(hash, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  sigv4::Request r{"PUT",
                   "/test$file.text",
                   {},
                   {{"Host", kHost},
                    {"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                    {"x-amz-date", kDate},
                    {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
                    {"x-amz-content-sha256", hash}},
                   hash};
  // '$' is not unreserved: the canonical URI has it as %24.
  EXPECT_NE(sigv4::canonicalRequest(r).find("\n/test%24file.text\n"), std::string::npos);
  EXPECT_EQ(sigv4::signedHeaders(r),
            "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class");
  EXPECT_EQ(signatureOf(sigv4::authorization(r, kExample, kDate, "us-east-1")),
            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(SigV4Examples, GetBucketLifecycle) {
  sigv4::Request r{"GET",
                   "/",
                   {{"lifecycle", ""}},
                   {{"Host", kHost},
                    {"x-amz-date", kDate},
                    {"x-amz-content-sha256", std::string(sigv4::kEmptyPayloadHash)}},
                   std::string(sigv4::kEmptyPayloadHash)};
  EXPECT_NE(sigv4::canonicalRequest(r).find("GET\n/\nlifecycle=\n"), std::string::npos);
  EXPECT_EQ(signatureOf(sigv4::authorization(r, kExample, kDate, "us-east-1")),
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(SigV4Examples, ListObjects) {
  // Given out of order: the canonical query string sorts them.
  sigv4::Request r{"GET",
                   "/",
                   {{"prefix", "J"}, {"max-keys", "2"}},
                   {{"Host", kHost},
                    {"x-amz-date", kDate},
                    {"x-amz-content-sha256", std::string(sigv4::kEmptyPayloadHash)}},
                   std::string(sigv4::kEmptyPayloadHash)};
  EXPECT_NE(sigv4::canonicalRequest(r).find("GET\n/\nmax-keys=2&prefix=J\n"), std::string::npos);
  EXPECT_EQ(signatureOf(sigv4::authorization(r, kExample, kDate, "us-east-1")),
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(SigV4, UriEncoding) {
  EXPECT_EQ(sigv4::uriEncode("a b/c~d_e-f.g", true), "a%20b/c~d_e-f.g");
  EXPECT_EQ(sigv4::uriEncode("a/b+c=", false), "a%2Fb%2Bc%3D");
  EXPECT_EQ(sigv4::uriEncode("\xc3\xa9", false), "%C3%A9");
}

// ---- libcurl's signatures, recomputed ------------------------------------------------------

// Accepts connections on a loopback port, keeps each request's head (and body, up to its
// Content-Length) and answers `reply` to each.
class CaptureServer {
 public:
  explicit CaptureServer(std::string reply) : reply_(std::move(reply)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 8);
    socklen_t size = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &size);
    port_ = ntohs(addr.sin_port);
  }
  ~CaptureServer() { ::close(fd_); }

  uint16_t port() const { return port_; }

  // Serves one request on a thread; returns it once the client is done.
  std::string serveOne(const std::function<void()>& client) {
    std::string request;
    std::thread server([&] {
      int c = ::accept(fd_, nullptr, nullptr);
      char buffer[65536];
      size_t need = std::string::npos;
      while (true) {
        ssize_t got = ::recv(c, buffer, sizeof buffer, 0);
        if (got <= 0) break;
        request.append(buffer, static_cast<size_t>(got));
        size_t end = request.find("\r\n\r\n");
        if (end == std::string::npos) continue;
        if (need == std::string::npos) {
          size_t length = 0;
          std::string lower = request.substr(0, end);
          for (char& ch : lower) ch = static_cast<char>(std::tolower(ch));
          size_t at = lower.find("\ncontent-length:");
          if (at != std::string::npos) length = std::stoul(lower.substr(at + 16));
          need = end + 4 + length;
          if (lower.find("\nexpect: 100-continue") != std::string::npos)
            ::send(c, "HTTP/1.1 100 Continue\r\n\r\n", 25, MSG_NOSIGNAL);
        }
        if (request.size() >= need) break;
      }
      ::send(c, reply_.data(), reply_.size(), MSG_NOSIGNAL);
      ::close(c);
    });
    client();
    server.join();
    return request;
  }

 private:
  std::string reply_;
  int fd_ = -1;
  uint16_t port_ = 0;
};

int hexValue(char c) {
  return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

std::string percentDecode(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      out += static_cast<char>(hexValue(text[i + 1]) * 16 + hexValue(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

struct Captured {
  sigv4::Request request;
  std::string authorization;
  std::string amz_date;
  std::string body;
};

// The request as our signer needs it: the headers curl says it signed, with the values sent.
Captured parse(const std::string& raw) {
  Captured out;
  size_t head_end = raw.find("\r\n\r\n");
  out.body = raw.substr(head_end + 4);
  std::istringstream head(raw.substr(0, head_end));
  std::string line;
  std::getline(head, line);
  std::istringstream first(line);
  std::string target;
  first >> out.request.method >> target;
  size_t question = target.find('?');
  out.request.path = percentDecode(target.substr(0, question));
  if (question != std::string::npos) {
    std::istringstream query(target.substr(question + 1));
    std::string pair;
    while (std::getline(query, pair, '&')) {
      size_t equals = pair.find('=');
      out.request.query.emplace_back(
          percentDecode(pair.substr(0, equals)),
          equals == std::string::npos ? "" : percentDecode(pair.substr(equals + 1)));
    }
  }
  std::vector<std::pair<std::string, std::string>> headers;
  while (std::getline(head, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t colon = line.find(':');
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(c));
    std::string value = line.substr(line.find_first_not_of(' ', colon + 1));
    headers.emplace_back(name, value);
  }
  std::string signed_list;
  for (const auto& [name, value] : headers) {
    if (name == "authorization") out.authorization = value;
    if (name == "x-amz-date") out.amz_date = value;
    if (name == "x-amz-content-sha256") out.request.payload_hash = value;
  }
  size_t at = out.authorization.find("SignedHeaders=");
  signed_list = out.authorization.substr(at + 14, out.authorization.find(',', at) - at - 14);
  std::set<std::string> signed_names;
  std::istringstream names(signed_list);
  std::string name;
  while (std::getline(names, name, ';')) signed_names.insert(name);
  for (const auto& h : headers)
    if (signed_names.count(h.first) > 0) out.request.headers.push_back(h);
  return out;
}

class CurlSigning : public ::testing::Test {
 protected:
  S3Settings settings(uint16_t port) {
    S3Settings s;
    s.endpoint = "http://127.0.0.1:" + std::to_string(port);
    s.bucket = "berth-test";
    s.region = "eu-central-1";
    s.credentials = {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"};
    return s;
  }
  void expectSignedByUs(const Captured& c, const S3Settings& s) {
    ASSERT_FALSE(c.authorization.empty());
    EXPECT_NE(sigv4::signedHeaders(c.request).find("x-amz-content-sha256"), std::string::npos)
        << c.authorization;
    EXPECT_NE(sigv4::signedHeaders(c.request).find("host"), std::string::npos);
    EXPECT_EQ(signatureOf(c.authorization),
              signatureOf(sigv4::authorization(c.request, s.credentials, c.amz_date, s.region)))
        << "curl signed another canonical request than\n"
        << sigv4::canonicalRequest(c.request);
    EXPECT_NE(c.authorization.find("Credential=AKIDEXAMPLE/" + c.amz_date.substr(0, 8) +
                                   "/eu-central-1/s3/aws4_request"),
              std::string::npos);
  }
};

TEST_F(CurlSigning, PutSignsOurPayloadHash) {
  CaptureServer server("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
  S3Settings s = settings(server.port());
  S3Client client(s);
  std::string body = "hello, signed world";
  std::string hash = Sha256::of(body);
  Captured c = parse(server.serveOne([&] { client.putBytes("p-1/0123abcd", body, hash); }));
  EXPECT_EQ(c.request.method, "PUT");
  EXPECT_EQ(c.request.path, "/berth-test/p-1/0123abcd");
  EXPECT_EQ(c.request.payload_hash, hash);
  EXPECT_EQ(c.body, body);
  expectSignedByUs(c, s);
}

TEST_F(CurlSigning, ListingWithAQuery) {
  std::string xml = "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>";
  CaptureServer server("HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: " +
                       std::to_string(xml.size()) + "\r\n\r\n" + xml);
  S3Settings s = settings(server.port());
  S3Client client(s);
  Captured c = parse(server.serveOne([&] { client.list("p 1/", "/", "tok+en/="); }));
  EXPECT_EQ(c.request.method, "GET");
  EXPECT_EQ(c.request.payload_hash, sigv4::kEmptyPayloadHash);
  expectSignedByUs(c, s);
}

TEST_F(CurlSigning, RangedGet) {
  CaptureServer server("HTTP/1.1 206 Partial Content\r\nContent-Length: 4\r\n\r\nbcde");
  S3Settings s = settings(server.port());
  S3Client client(s);
  std::string got;
  Captured c = parse(server.serveOne([&] { got = client.getRange("p-1/0123abcd", 1, 4); }));
  EXPECT_EQ(got, "bcde");
  bool ranged = false;
  for (const auto& [name, value] : c.request.headers)
    if (name == "range") ranged = value == "bytes=1-4";
  EXPECT_TRUE(ranged) << "the Range header is sent and signed";
  expectSignedByUs(c, s);
}

TEST_F(CurlSigning, VirtualHostedUrl) {
  S3Settings s = settings(9);
  s.endpoint = "https://s3.eu-central-1.amazonaws.com";
  s.path_style = false;
  EXPECT_EQ(S3Client(s).url("p-1/ab"), "https://berth-test.s3.eu-central-1.amazonaws.com/p-1/ab");
  s.path_style = true;
  EXPECT_EQ(S3Client(s).url("p-1/ab"), "https://s3.eu-central-1.amazonaws.com/berth-test/p-1/ab");
}

}  // namespace
