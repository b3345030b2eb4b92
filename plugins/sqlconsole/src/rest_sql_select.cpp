// The select list as SQL: columns (renamed, cast) and embedded related tables. An embed goes
// through a declared foreign key, found in the catalogue in either direction:
//   many-to-one  the key is on the outer table (orders.customer_id -> customers): an object or null
//   one-to-many  the key is on the embedded table (customers <- orders.customer_id): an array
// Several keys between the same two tables need a hint, table!hint(...), naming the constraint or
// a column of the key. A table whose key points at itself (staff.boss_id -> staff) is both: a
// hint naming the key's column embeds the row it points to (many-to-one), a hint naming the
// constraint embeds the rows pointing at this one (one-to-many).
#include <set>

#include <berth/common/sql_text.hpp>
#include "rest_sql_parts.hpp"
#include "rest_text.hpp"

namespace berth::sqlconsole {
namespace {

struct Relation {
  const CatalogLink* link = nullptr;
  bool to_one = true;  // many-to-one: the link is declared on the outer table
};

bool hintNamesColumn(const CatalogLink& link, const std::string& hint) {
  for (const std::string& column : link.columns)
    if (column == hint) return true;
  return false;
}

std::string optionsText(const std::vector<Relation>& candidates, const CatalogTable& inner,
                        bool self) {
  std::string out;
  for (const Relation& r : candidates) {
    if (!out.empty()) out += ", ";
    if (self) {
      out += r.to_one ? inner.name + "!" + r.link->column + " for the row it points to"
                      : inner.name + "!" + r.link->constraint + " for the rows pointing to it";
    } else {
      out += inner.name + "!" + r.link->constraint;
    }
  }
  return out;
}

Relation resolveRelation(const CatalogTable& outer, const CatalogTable& inner,
                         const SelectItem& item) {
  const bool self = outer.name == inner.name;
  std::vector<Relation> candidates;
  for (const CatalogLink& link : outer.links)
    if (link.table == inner.name) candidates.push_back({&link, true});
  for (const CatalogLink& link : inner.links)
    if (link.table == outer.name) candidates.push_back({&link, false});

  if (!item.hint.empty()) {
    std::vector<Relation> kept;
    for (const Relation& r : candidates) {
      bool by_constraint = r.link->constraint == item.hint;
      bool by_column = hintNamesColumn(*r.link, item.hint);
      // For a key pointing at its own table, the hint also says which way.
      if (self && r.to_one && !by_column) continue;
      if (self && !r.to_one && !by_constraint) continue;
      if (by_constraint || by_column) kept.push_back(r);
    }
    if (kept.empty()) {
      std::string advice = candidates.empty()
                               ? "embedding needs a foreign key declared between them"
                               : "name one of " + optionsText(candidates, inner, self);
      throw RestRefusal(describeRestProblem(item.origin,
                                            "no foreign key " +
                                                rest_text::quotedSnippet(item.hint) + " links " +
                                                outer.name + " and " + inner.name,
                                            advice));
    }
    candidates = std::move(kept);
  }
  if (candidates.empty())
    throw RestRefusal(describeRestProblem(
        item.origin, "no foreign key links " + outer.name + " and " + inner.name,
        "embedding needs a foreign key declared between them"));
  if (candidates.size() > 1)
    throw RestRefusal(describeRestProblem(
        item.origin, "more than one foreign key links " + outer.name + " and " + inner.name,
        "say which with " + optionsText(candidates, inner, self)));
  return candidates.front();
}

std::string joinCondition(const Relation& relation, const std::string& outer_alias,
                          const std::string& inner_alias) {
  const CatalogLink& link = *relation.link;
  std::string sql;
  for (size_t i = 0; i < link.columns.size() && i < link.to_columns.size(); ++i) {
    if (!sql.empty()) sql += " AND ";
    // many-to-one: inner.to = outer.column; one-to-many: inner.column = outer.to.
    const std::string& inner_column = relation.to_one ? link.to_columns[i] : link.columns[i];
    const std::string& outer_column = relation.to_one ? link.columns[i] : link.to_columns[i];
    sql += inner_alias + "." + common::quotedIdentifier(inner_column) + " = " + outer_alias + "." +
           common::quotedIdentifier(outer_column);
  }
  return sql;
}

std::string keyOf(const SelectItem& item) {
  return item.alias.empty() ? item.name : item.alias;
}

class SelectWriter {
 public:
  SelectWriter(const Catalog& catalog, AliasCounter& aliases)
      : catalog_(catalog), aliases_(aliases) {}

  std::string list(const CatalogTable& table, const std::string& alias,
                   const std::optional<SelectList>& list) {
    // No select list: the database expands the star itself, each time it plans the prepared
    // statement again after a change of the table, so a column added to it is in the very next
    // answer even while the rows routes trust a kept catalogue (catalog_cache.hpp).
    if (!list) return alias + ".*";
    std::set<std::string> keys;
    std::string sql;
    for (const SelectItem& item : *list) {
      std::string part = this->item(table, alias, item, keys);
      if (part.empty()) continue;
      if (!sql.empty()) sql += ", ";
      sql += part;
    }
    return sql;
  }

 private:
  std::string everyColumn(const CatalogTable& table, const std::string& alias) {
    std::string sql;
    for (const CatalogColumn& column : table.columns) {
      if (!sql.empty()) sql += ", ";
      sql += alias + "." + common::quotedIdentifier(column.name) + " AS " +
             common::quotedIdentifier(column.name);
    }
    return sql;
  }

  // Each key may appear once in a JSON object: a column given twice (or by * and by name)
  // would otherwise give an object with two equal keys.
  void claim(std::set<std::string>& keys, const std::string& key, const SelectItem& item) {
    if (!keys.insert(key).second)
      throw RestRefusal(describeRestProblem(
          item.origin, rest_text::quotedSnippet(key) + " is given twice in the same select list",
          "rename one with alias:column"));
  }

  std::string item(const CatalogTable& table, const std::string& alias, const SelectItem& item,
                   std::set<std::string>& keys) {
    switch (item.kind) {
      case SelectKind::Star: {
        for (const CatalogColumn& column : table.columns) claim(keys, column.name, item);
        return everyColumn(table, alias);
      }
      case SelectKind::Column: {
        const CatalogColumn& column = requireColumn(table, item.name, &item.origin);
        std::string sql = alias + "." + common::quotedIdentifier(column.name);
        if (!item.cast.empty()) {
          const std::string* type = catalog_.type(item.cast);
          if (type == nullptr)
            throw RestRefusal(describeRestProblem(
                item.origin, "no type named " + rest_text::quotedSnippet(item.cast),
                "cast to a type the database has, such as text, integer or jsonb"));
          // The database's own spelling of the type, never the request's.
          sql += "::" + *type;
        }
        claim(keys, keyOf(item), item);
        return sql + " AS " + common::quotedIdentifier(keyOf(item));
      }
      case SelectKind::Embed:
        return embed(table, alias, item, keys);
    }
    return {};
  }

  std::string embed(const CatalogTable& outer, const std::string& outer_alias,
                    const SelectItem& item, std::set<std::string>& keys) {
    const CatalogTable* inner = catalog_.table(item.name);
    if (inner == nullptr && !item.origin.loose_refusal.empty())
      throw RestRefusal(item.origin.loose_refusal);
    if (inner == nullptr)
      throw RestRefusal(describeRestProblem(
          item.origin, "no table named " + rest_text::quotedSnippet(item.name) + " to embed"));
    Relation relation = resolveRelation(outer, *inner, item);
    claim(keys, keyOf(item), item);
    const std::string inner_alias = aliases_.nextTable();
    const std::string row = aliases_.nextRow();
    std::string rows = "SELECT " + list(*inner, inner_alias, item.children) + " FROM " +
                       qualifiedName(*inner) + " AS " + inner_alias + " WHERE " +
                       joinCondition(relation, outer_alias, inner_alias);
    std::string value =
        relation.to_one
            ? "SELECT to_json(" + row + ".*) FROM (" + rows + ") AS " + row
            : "SELECT coalesce(json_agg(" + row + ".*), '[]') FROM (" + rows + ") AS " + row;
    return "(" + value + ") AS " + common::quotedIdentifier(keyOf(item));
  }

  const Catalog& catalog_;
  AliasCounter& aliases_;
};

}  // namespace

std::string selectListSql(const Catalog& catalog, const CatalogTable& table,
                          const std::string& alias, const std::optional<SelectList>& list,
                          AliasCounter& aliases) {
  return SelectWriter(catalog, aliases).list(table, alias, list);
}

}  // namespace berth::sqlconsole
