// The order parameter of the rows grammar.
//
//   order   := term ("," term)*
//   term    := column ("." modifier)*      at most one direction and one nulls position
//   modifier:= asc | desc | nullsfirst | nullslast
//
// The column is a name as in rest_scanner.hpp (plain or "double quoted"); spaces around terms
// are skipped. Without a direction a term is ascending; without a nulls position it is the
// database's default for that direction.
#pragma once
#include <string_view>
#include <vector>

#include "rest_ast.hpp"

namespace berth::sqlconsole {

// The value of order=... (never empty). Throws RestSyntaxError.
std::vector<OrderTerm> parseOrder(std::string_view value);

}  // namespace berth::sqlconsole
