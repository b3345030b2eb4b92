// fuzz-link: pg_query
// fuzz-sources: tests/fuzz/support/reference_process.cpp
// The WordPress drop-in's MySQL parser and translator (PHP, plugins/templates/wordpress/
// payload/wp-content/berth-pgsql), asked through ONE long-lived `php` child
// (support/mysql_parse_worker.php) over pipes, and PostgreSQL's own grammar (libpg_query) on
// what the translator writes:
// - a ParseError, a TranslateError or a MysqlError (a table WordPress does not have) is the
//   documented refusal; any other exception, PHP error, warning or notice, a TranslateError
//   hiding a PHP \Error (the translator's "internal error"), or a dead worker is a finding;
// - every PostgreSQL statement a successful translation gives must parse with pg_query_parse
//   (a differential: the translator's output is PostgreSQL's grammar, not merely text).
// PHP gives libFuzzer no coverage feedback: only this file's few branches count, so the
// fuzzer mostly mutates the seeds (WordPress's captured statements) with the MySQL keyword
// dictionary; both matter more here than for the C++ targets. As a stand-in for coverage,
// each distinct answer (the refusal's reason without its offset, or the translation's kind and
// statement count) bumps one of libFuzzer's extra counters, so an input reaching a new refusal
// or a new kind of translation is kept in the corpus.
#include <pg_query.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>

#include "support/fuzz_check.hpp"
#include "support/reference_process.hpp"

namespace {

using berth::fuzz::fail;

constexpr size_t kMaxInput = 8 * 1024;

#if defined(__clang__)
__attribute__((used, section("__libfuzzer_extra_counters")))
#endif
std::uint8_t answer_counters[8192];

// The answer without what varies per input (offsets, quoted excerpts, names, values).
void countAnswer(const std::string& answer) {
  std::string shape;
  if (answer.front() == 'K') {
    shape = answer.substr(0, answer.find('\n'));
    size_t statements = 0;
    for (size_t at = shape.size() + 1; at + 4 <= answer.size(); ++statements)
      at += 4 + ((std::uint32_t{static_cast<unsigned char>(answer[at])} << 24) |
                 (std::uint32_t{static_cast<unsigned char>(answer[at + 1])} << 16) |
                 (std::uint32_t{static_cast<unsigned char>(answer[at + 2])} << 8) |
                 std::uint32_t{static_cast<unsigned char>(answer[at + 3])});
    shape += std::to_string(statements);
    // Which of PostgreSQL's words the translation uses (JOIN, ON CONFLICT, COLLATE, ...).
    std::set<std::string> words;
    std::string word;
    for (char c : answer.substr(shape.size())) {
      if (c >= 'A' && c <= 'Z') {
        word += c;
      } else {
        if (word.size() > 1) words.insert(word);
        word.clear();
      }
    }
    for (const auto& w : words) shape += " " + w;
  } else {
    const auto reason = answer.rfind("): ");
    shape =
        answer.front() + (reason == std::string::npos ? answer.substr(1) : answer.substr(reason));
    bool quoted = false;
    std::string plain;
    for (char c : shape) {
      if (c == '\'' || c == '`' || c == '"')
        quoted = !quoted;
      else if (!quoted && !(c >= '0' && c <= '9'))
        plain += c;
    }
    shape = plain;
  }
  std::uint32_t hash = 2166136261u;
  for (unsigned char c : shape) hash = (hash ^ c) * 16777619u;
  auto& counter = answer_counters[hash % sizeof answer_counters];
  if (counter < 255) ++counter;
}

berth::fuzz::ReferenceProcess& worker() {
  static berth::fuzz::ReferenceProcess process([] {
    const auto script =
        std::filesystem::path(__FILE__).parent_path() / "support" / "mysql_parse_worker.php";
    return std::vector<std::string>{
        "/usr/bin/php", "-d", "memory_limit=512M", "-d", "display_errors=stderr", script.string()};
  }());
  return process;
}

std::uint32_t bigEndian(const std::string& text, size_t at) {
  const auto* b = reinterpret_cast<const unsigned char*>(text.data() + at);
  return (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) |
         std::uint32_t{b[3]};
}

// Every statement of a successful translation: "K<kind>\n" then length-prefixed texts.
void checkTranslation(std::string_view mysql, const std::string& answer) {
  size_t at = answer.find('\n');
  if (at == std::string::npos) fail("the worker's answer has no kind", answer);
  ++at;
  while (at < answer.size()) {
    if (answer.size() - at < 4) fail("the worker's answer is cut", answer);
    const std::uint32_t size = bigEndian(answer, at);
    at += 4;
    if (answer.size() - at < size) fail("the worker's answer is cut", answer);
    const std::string sql = answer.substr(at, size);
    at += size;
    if (sql.find('\0') != std::string::npos)
      fail("the translation holds a NUL byte, which PostgreSQL never accepts", sql);
    PgQueryParseResult parsed = pg_query_parse(sql.c_str());
    if (parsed.error) {
      std::string detail = "MySQL: " + std::string(mysql) + "\nPostgreSQL: " + sql +
                           "\nerror: " + parsed.error->message;
      pg_query_free_parse_result(parsed);
      fail("the translation is not PostgreSQL's grammar", detail);
    }
    pg_query_free_parse_result(parsed);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInput) return 0;
  const auto mysql = berth::fuzz::asText(data, size);
  const std::string answer = worker().ask(mysql);
  if (answer.empty()) fail("the worker gave an empty answer", mysql);
  countAnswer(answer);
  switch (answer.front()) {
    case 'P':  // ParseError
    case 'T':  // TranslateError
    case 'M':  // MysqlError
      return 0;
    case 'K':
      checkTranslation(mysql, answer);
      return 0;
    case 'F':
      fail("the PHP parser or translator failed otherwise than by its documented errors",
           answer.substr(1) + "\nMySQL: " + std::string(mysql));
    default:
      fail("the worker's answer is not understood", answer);
  }
}
