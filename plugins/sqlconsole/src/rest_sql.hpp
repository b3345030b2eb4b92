// From a rows query (rest_ast.hpp) to SQL, for /projects/{name}/tables/{table}/rows and for the
// browser data API /_data. This is the step the grammar leaves undone: every table, column,
// cast type and embedded relation is looked up in the Catalog (a name that is not there is a
// RestRefusal saying which and where, in the grammar's own "at character <n> of <param>"
// form), every name is quoted as an identifier, and every value (filter values, written
// values, limit and offset) is a bound parameter $n. Nothing from the request is pasted into
// the SQL text except as a quoted name the catalogue confirmed.
//
// The statements read and write JSON built by the database (json_agg over the rows, as
// PostgREST does), so a value comes out as PostgreSQL's to_json gives it: numbers as numbers,
// json/jsonb as JSON, timestamps as ISO text. Embedding follows declared foreign keys: a
// relation whose key is on the outer table (many-to-one) is an object (or null), one whose key
// is on the embedded table (one-to-many) is an array; they nest.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "catalog.hpp"
#include "pg_session.hpp"
#include "rest_ast.hpp"

namespace berth::sqlconsole {

// A request the catalogue check refuses (unknown table, column, type or relation; a body that
// does not fit the table). what() is the message for the person; routes answer 400.
class RestRefusal : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SqlStatement {
  std::string text;
  PgParams params;
};

// What a request needs from the catalogue: its table, every table it embeds (at any depth) and
// every type it casts to. The type names are as written.
CatalogScope catalogScopeFor(std::string_view table, const RestQuery& query);

// The table a route names; RestRefusal "no table named {table}" (docs/openapi.yaml's words)
// otherwise.
const CatalogTable& requireTable(const Catalog& catalog, std::string_view table);

// ---- reading ---------------------------------------------------------------------------------

struct ReadOptions {
  bool count = true;  // total: rows matching the filters, ignoring limit and offset
};

// One statement returning one row: total (bigint; NULL without count), rows (a JSON array of
// the page, in order) and returned (bigint, the page's length).
SqlStatement buildRead(const Catalog& catalog, std::string_view table, const RestQuery& query,
                       const ReadOptions& options = {});

// ---- writing ---------------------------------------------------------------------------------
// Each write statement returns one row: affected (bigint) and rows (the written rows as a JSON
// array shaped by `select`, or NULL when no representation is asked for).

struct Representation {
  bool wanted = false;
  std::optional<SelectList> select;  // absent: every column
};

enum class OnConflict { Error, Merge, Ignore };

struct InsertRequest {
  // The body: one object or an array of objects. Keys are column names; a column a row leaves
  // out gets its default.
  nlohmann::json body;
  // PostgREST's columns=...: only these keys are taken from the rows (others are ignored).
  std::optional<std::vector<std::string>> columns;
  OnConflict on_conflict = OnConflict::Error;
  // The columns of the unique key an upsert compares on; empty: the primary key.
  std::vector<std::string> conflict_columns;
  Representation representation;
};

// The statements (usually one; more when the rows need more than PostgreSQL's 65535 bound
// parameters of one statement) that insert the body. Run them in one transaction. Refusals:
// "nothing to insert" for an empty array or a body without rows, a row that is not an object,
// a key that is not a column.
std::vector<SqlStatement> buildInsert(const Catalog& catalog, std::string_view table,
                                      const InsertRequest& request);

// UPDATE ... SET body WHERE filters. Refusals: "an update needs a filter" (no filter),
// "nothing to update" (an empty object), a body that is not an object, a key that is not a column.
SqlStatement buildUpdate(const Catalog& catalog, std::string_view table, const RestQuery& query,
                         const nlohmann::json& body, const Representation& representation);

// DELETE ... WHERE filters. Refusal: "a delete needs a filter".
SqlStatement buildDelete(const Catalog& catalog, std::string_view table, const RestQuery& query,
                         const Representation& representation);

// The text PostgreSQL reads as a value of a column of type `type` (as format_type prints it)
// for a JSON value: null is SQL NULL; strings as they are; numbers and booleans as JSON writes
// them; for json/jsonb columns the JSON text of any value; a JSON array for an array column
// becomes an array literal {..}.
PgParam pgValueText(const nlohmann::json& value, std::string_view type);

}  // namespace berth::sqlconsole
