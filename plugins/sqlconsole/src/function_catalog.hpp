// The functions of `public` that /_data/rpc/<function> may call, read from pg_proc, and the
// statement that calls one with named arguments from a JSON body (PostgREST's RPC).
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "pg_session.hpp"
#include "rest_sql.hpp"

namespace berth::sqlconsole {

struct FunctionArgument {
  std::string name;  // empty for an unnamed argument (which named calls cannot give)
  std::string type;  // as format_type prints it
  bool has_default = false;
};

enum class FunctionResult {
  Void,       // returns void: the call answers no content
  Scalar,     // one value
  Row,        // one composite value: an object
  ScalarSet,  // setof a scalar: an array of values
  RowSet,     // setof a composite or returns table(...): an array of objects
};

struct CatalogFunction {
  std::string name;
  std::vector<FunctionArgument> arguments;  // the input arguments, in order
  FunctionResult result = FunctionResult::Scalar;
  bool variadic = false;
};

// Every overload of public.<name> that is a plain function (not a procedure, aggregate or
// window function). One round trip.
std::vector<CatalogFunction> loadFunctions(PgSession& session, std::string_view name);

// Whether a function of that name exists in public (for the settings routes).
bool functionExists(PgSession& session, std::string_view name);

// SELECT calling the one overload whose named arguments the body's keys fit (every key an
// argument, every argument without a default given), each value bound and cast to the
// argument's type. The statement returns one row with one JSON column (none for Void).
// RestRefusal when the body is not an object or no overload (or more than one) fits.
SqlStatement buildFunctionCall(const std::vector<CatalogFunction>& overloads, std::string_view name,
                               const nlohmann::json& body, FunctionResult* result);

}  // namespace berth::sqlconsole
