// The select parameter of the rows grammar (PostgREST's vertical filtering and embedding).
//
//   list   := item ("," item)*
//   item   := "*"
//           | [alias ":"] column ["::" type]
//           | [alias ":"] table ["!" hint] "(" list ")"     an embedded related table
//   type   := [A-Za-z_][A-Za-z0-9_]* ("[]")*                 e.g. text, int4, text[]
//
// alias, column, table and hint are names as in rest_scanner.hpp (plain or "double quoted").
// Spaces around items are skipped. Embeds nest up to kMaxRestNesting deep. An embed's list is
// never empty (write table(*) for all its columns). PostgREST's join kinds (!inner, !left)
// are refused; a foreign key really called inner or left is written quoted: t!"inner"(*). Within
// one list two items may not give the same key (alias, else name); "*" has no alias or cast. Which
// way a relation goes (an object for many-to-one, an array for one-to-many) is the catalogue step's
// business.
#pragma once
#include <string_view>

#include "rest_ast.hpp"

namespace berth::sqlconsole {

// The value of select=... (never empty). Throws RestSyntaxError.
SelectList parseSelect(std::string_view value);

}  // namespace berth::sqlconsole
