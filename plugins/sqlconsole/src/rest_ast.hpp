// The syntax tree of a rows query (docs/openapi.yaml, GET /projects/{name}/tables/{table}/rows,
// shared with /_data): what the grammar of rest_query.hpp produces and the SQL step consumes.
//
// Names (columns, tables, aliases, foreign key hints, cast types, languages) are plain strings
// exactly as written, case kept: nothing here has been checked against the database. The step
// that builds SQL must look every name up in the catalogue (refusing unknown ones with a 400
// that quotes the node's origin) and quote it as an identifier; values must only ever be bound
// parameters. Nothing in this tree is safe to paste into SQL.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rest_error.hpp"

namespace berth::sqlconsole {

// Filter operators, as PostgREST names them (the comment is the PostgreSQL they stand for).
enum class FilterOp {
  Eq,          // =
  Neq,         // <>
  Gt,          // >
  Gte,         // >=
  Lt,          // <
  Lte,         // <=
  Like,        // LIKE (value has * already turned into %)
  Ilike,       // ILIKE (likewise)
  Match,       // ~
  Imatch,      // ~*
  In,          // = ANY (values)
  Is,          // IS null / not null / true / false / unknown
  IsDistinct,  // IS DISTINCT FROM
  Fts,         // @@ to_tsquery
  Plfts,       // @@ plainto_tsquery
  Phfts,       // @@ phraseto_tsquery
  Wfts,        // @@ websearch_to_tsquery
  Cs,          // @>
  Cd,          // <@
  Ov,          // &&
  Sl,          // <<
  Sr,          // >>
  Nxr,         // &<
  Nxl,         // &>
  Adj,         // -|-
};

// The operator as written in a URL ("eq", "isdistinct" ...).
std::string_view filterOpName(FilterOp op);
// The operator written `name`, if any (exact, lower case, as PostgREST).
std::optional<FilterOp> filterOpFromName(std::string_view name);
// Whether the operator takes a text search language, as in fts(english).
bool takesLanguage(FilterOp op);
// "eq, neq, gt, ..." in the order above, for messages.
std::string knownFilterOpNames();

// What `is` compares with. NotNull is PostgREST's is.not_null, the same as not.is.null.
enum class IsValue { Null, NotNull, True, False, Unknown };
std::string_view isValueName(IsValue value);

enum class FilterKind { Condition, And, Or };

// One filter: a condition on a column, or an and/or group of filters. A tagged struct rather
// than a variant so that the SQL step can walk it with a plain switch.
struct Filter {
  FilterKind kind = FilterKind::Condition;
  bool negated = false;  // not.eq.5, not.and(...), not.or=(...)

  // Condition only.
  std::string column;
  FilterOp op = FilterOp::Eq;
  std::string value;                // every operator but in and is; may be empty (eq. is "")
  std::vector<std::string> values;  // in: the items; an empty list matches no row
  IsValue is = IsValue::Null;       // is
  std::string language;             // fts, plfts, phfts, wfts: empty for the database default

  // And / Or only: at least one child.
  std::vector<Filter> children;

  RestOrigin origin;  // where the column name (or the group) was written
};

enum class NullsOrder { Default, First, Last };

struct OrderTerm {
  std::string column;
  bool descending = false;
  NullsOrder nulls = NullsOrder::Default;
  RestOrigin origin;
};

enum class SelectKind { Star, Column, Embed };

// One item of a select list. The key it gets in the JSON rows is alias when set, else name.
struct SelectItem {
  SelectKind kind = SelectKind::Column;
  std::string name;   // Column: the column; Embed: the related table; Star: empty
  std::string alias;  // alias:name, empty when none
  std::string cast;   // Column only: name::cast, a type name with optional [] suffixes
  std::string hint;   // Embed only: table!hint names the foreign key to embed through
  std::vector<SelectItem> children;  // Embed only: its own select list, never empty
  RestOrigin origin;
};

using SelectList = std::vector<SelectItem>;

// A whole rows query.
struct RestQuery {
  std::vector<Filter> filters;       // every one must match (AND)
  std::vector<OrderTerm> order;      // empty: no order asked for
  std::optional<SelectList> select;  // absent: every column, nothing embedded
  int limit = 50;                    // already clamped
  std::int64_t offset = 0;
};

// Canonical text of a filter, for logs and tests: names as written, scalar values in double
// quotes with \" and \\ escaped, e.g. or(a.eq."1",not.and(b.in.("x","y"),c.is.null)).
std::string describeFilter(const Filter& filter);
// Canonical text of a select list: alias:name::cast and alias:table!hint(children).
std::string describeSelect(const SelectList& list);

}  // namespace berth::sqlconsole
