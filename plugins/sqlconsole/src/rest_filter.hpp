// The filter part of the rows grammar (PostgREST's horizontal filtering).
//
//   column filter   key=value, key a column name:   value := op-part "." value-text
//   op-part         ["not."] operator ["(" language ")"]      language only for the fts family
//   logic filter    or=(...), and=(...), not.or=(...), not.and=(...)
//   group           "(" item ("," item)* ")"                  at least one item
//   item            ["not."] ("or" | "and") group             nested group
//                 | column "." op-part "." group-value        a condition, dots instead of =
//
// Values by operator:
//   in              "(" [item ("," item)*] ")"; an item is "double quoted" (\" and \\ inside)
//                   or plain text without , ( ) or "; in.() is an empty list (matches no row)
//   is              null, not_null, true, false or unknown, any letter case
//   like, ilike     text with every * turned into %
//   the others      text, passed on untouched (the database types it as a bound parameter)
// A top-level value is the rest of the parameter as written, commas, quotes and all. Inside
// a group a value ends at a "," or ")" outside brackets: it is either "double quoted" or plain
// text in which (..), [..] and {..} may nest (so ranges and arrays such as [1,5) and {1,2}
// need no quotes) and a " may only appear inside such brackets.
// Spaces are skipped before and after the items of a group, nowhere else. PostgREST's
// quantifiers (eq(any).{1,2}) are not part of this grammar: only the fts family takes
// something in parentheses.
#pragma once
#include <string_view>

#include "rest_ast.hpp"

namespace berth::sqlconsole {

// key=value where key names a column (plain or "double quoted"). Throws RestSyntaxError.
Filter parseColumnFilter(std::string_view key, std::string_view value);

// key must be "or", "and", "not.or" or "not.and" (isLogicFilterKey); any other key is taken
// for "and". Throws RestSyntaxError.
Filter parseLogicFilter(std::string_view key, std::string_view value);

// Whether key is one of the four keys parseLogicFilter takes.
bool isLogicFilterKey(std::string_view key);

}  // namespace berth::sqlconsole
