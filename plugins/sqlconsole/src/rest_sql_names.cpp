// Names in rows SQL: quoting, catalogue look-ups that refuse with a reason, and what a query
// needs the catalogue to hold.
#include <set>

#include <berth/common/sql_text.hpp>
#include "rest_sql_parts.hpp"
#include "rest_text.hpp"

namespace berth::sqlconsole {
namespace {

// A table's columns for advice, cut short for very wide tables.
std::string columnList(const CatalogTable& table) {
  constexpr size_t kShown = 30;
  std::string out;
  for (size_t i = 0; i < table.columns.size() && i < kShown; ++i) {
    if (i > 0) out += ", ";
    out += table.columns[i].name;
  }
  if (table.columns.size() > kShown) out += ", ...";
  return out;
}

void collectEmbeds(const SelectList& list, std::set<std::string>& tables,
                   std::set<std::string>& types) {
  for (const SelectItem& item : list) {
    if (item.kind == SelectKind::Embed) {
      tables.insert(item.name);
      collectEmbeds(item.children, tables, types);
    } else if (item.kind == SelectKind::Column && !item.cast.empty()) {
      types.insert(item.cast);
    }
  }
}

}  // namespace

std::string SqlParams::add(PgParam value) {
  values_.push_back(std::move(value));
  return "$" + std::to_string(values_.size());
}

std::string qualifiedName(const CatalogTable& table) {
  return "\"public\"." + common::quotedIdentifier(table.name);
}

const CatalogTable& requireTable(const Catalog& catalog, std::string_view table) {
  const CatalogTable* found = catalog.table(table);
  if (found == nullptr)
    throw RestRefusal("no table named " + rest_text::printableSnippet(table, 120));
  return *found;
}

const CatalogColumn& requireColumn(const CatalogTable& table, std::string_view name,
                                   const RestOrigin* origin) {
  const CatalogColumn* column = table.column(name);
  if (column != nullptr) return *column;
  // A name only PostgREST's looser rules read (Full Name) stands for a column or nothing: any
  // other is refused as the strict grammar refused it.
  if (origin != nullptr && !origin->loose_refusal.empty()) throw RestRefusal(origin->loose_refusal);
  std::string problem = "no column named " + rest_text::quotedSnippet(name) + " in " + table.name;
  std::string advice = table.columns.empty() ? std::string("the table has no columns")
                                             : "the columns are " + columnList(table);
  if (origin != nullptr) throw RestRefusal(describeRestProblem(*origin, problem, advice));
  throw RestRefusal(problem + "; " + advice);
}

CatalogScope catalogScopeFor(std::string_view table, const RestQuery& query) {
  std::set<std::string> tables{std::string(table)};
  std::set<std::string> types;
  if (query.select) collectEmbeds(*query.select, tables, types);
  CatalogScope scope;
  scope.all_tables = false;
  scope.tables.assign(tables.begin(), tables.end());
  scope.types.assign(types.begin(), types.end());
  return scope;
}

}  // namespace berth::sqlconsole
