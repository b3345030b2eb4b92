// The error every part of the rows query grammar throws, and where in a request a thing was
// written (kept in the syntax tree, so that the later catalogue check can point at the same
// place in the same words as the parser).
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace berth::sqlconsole {

// A query parameter of a rows request (or of /_data) that does not follow the grammar. what()
// is a sentence meant for the person who wrote the request: it names the parameter and the
// 1-based character where the problem is, and usually says how to write it instead. Routes
// answer it with 400 and the message as the error.
class RestSyntaxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where a part of the query was written.
struct RestOrigin {
  // The whole parameter as "key=value", made printable and cut to about 120 characters.
  std::string param;
  // 1-based character (not byte) in "key=value" where the part starts.
  std::size_t character = 1;
  // Set when the name here was read by PostgREST's looser rules (a space or a dash unquoted,
  // as in Full Name=eq.1) because the strict grammar refused the parameter: the strict
  // grammar's message. Such a name stands only if it names a column (or, in select, a table
  // to embed); the catalogue check refuses any other with this message (400, as before).
  std::string loose_refusal;
};

// "<problem> at character <n> of <param>" followed by "; <advice>" when advice is not empty.
// Every positioned message of the grammar has this form.
std::string describeRestProblem(const RestOrigin& origin, std::string_view problem,
                                std::string_view advice = {});

}  // namespace berth::sqlconsole
