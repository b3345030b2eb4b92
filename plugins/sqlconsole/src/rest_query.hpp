// The rows query grammar: one parser for GET/PATCH/DELETE .../tables/{table}/rows and for the
// browser data API /_data/<table>. It follows PostgREST's URL grammar (filters with every
// operator and not., or/and groups, order, select with aliases, casts and embedding, limit and
// offset), is pure (no database) and turns the request's query parameters into the syntax tree
// of rest_ast.hpp. The parts are in rest_filter.hpp, rest_order.hpp, rest_select.hpp and
// rest_paging.hpp, each with its grammar at the top.
//
// Keys, exact and case-sensitive:
//   select, order, limit, offset   at most once each
//   or, and, not.or, not.and       a logic group; may repeat, each one more AND-ed filter
//   anything else                  a filter on the column it names (may repeat: a=gt.1&a=lt.9)
// A column whose name is one of the keys above is filtered by quoting it: "limit"=eq.5.
// A column name with spaces or a dash may be written unquoted, as PostgREST allows
// (Full Name=eq.Ada): read so only when the strict reading refuses the parameter, and marked
// (RestOrigin::loose_refusal) so that the catalogue step takes it only if it is a column.
// Filters on embedded tables (orders.amount=gt.5), JSON paths (data->x), aggregates and the
// spread (...) of newer PostgREST are not part of this grammar and are refused with a message.
//
// What the next step must do (this one cannot, having no catalogue): check every column,
// table, hint, alias and cast type against the catalogue, quote names as identifiers, and send
// every value as a bound parameter. Values here are the text as written.
//
// Errors are RestSyntaxError; messages name the parameter and the 1-based character (counted
// in "key=value") where the problem is, for example
//   unknown operator "equals" at character 5 of age=equals.5; use one of eq, neq, ...
// A transport parameter that is not part of the grammar (an API key, say) must be removed by
// the caller first: every unknown key is taken for a column.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rest_ast.hpp"
#include "rest_error.hpp"
#include "rest_paging.hpp"

namespace berth::sqlconsole {

using RestParams = std::vector<std::pair<std::string, std::string>>;

// params: the query string's pairs in order, keys and values already percent-decoded.
// Throws RestSyntaxError.
RestQuery parseRestQuery(const RestParams& params, const RestLimits& limits = {});

// Whether key is one of the eight keys that are not column filters.
bool isReservedRestKey(std::string_view key);

}  // namespace berth::sqlconsole
