#include "rest_ast.hpp"

#include <array>
#include <utility>

namespace berth::sqlconsole {
namespace {

// One table for both directions, in enum order, so a new operator cannot be half added.
constexpr std::array<std::pair<FilterOp, std::string_view>, 25> kOperators{{
    {FilterOp::Eq, "eq"},
    {FilterOp::Neq, "neq"},
    {FilterOp::Gt, "gt"},
    {FilterOp::Gte, "gte"},
    {FilterOp::Lt, "lt"},
    {FilterOp::Lte, "lte"},
    {FilterOp::Like, "like"},
    {FilterOp::Ilike, "ilike"},
    {FilterOp::Match, "match"},
    {FilterOp::Imatch, "imatch"},
    {FilterOp::In, "in"},
    {FilterOp::Is, "is"},
    {FilterOp::IsDistinct, "isdistinct"},
    {FilterOp::Fts, "fts"},
    {FilterOp::Plfts, "plfts"},
    {FilterOp::Phfts, "phfts"},
    {FilterOp::Wfts, "wfts"},
    {FilterOp::Cs, "cs"},
    {FilterOp::Cd, "cd"},
    {FilterOp::Ov, "ov"},
    {FilterOp::Sl, "sl"},
    {FilterOp::Sr, "sr"},
    {FilterOp::Nxr, "nxr"},
    {FilterOp::Nxl, "nxl"},
    {FilterOp::Adj, "adj"},
}};

// Quotes a value so that describeFilter output is unambiguous whatever the value holds.
std::string quoteValue(std::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

void describeInto(const Filter& filter, std::string& out) {
  if (filter.kind != FilterKind::Condition) {
    // Groups are negated before their name, conditions before their operator, as written.
    if (filter.negated) out += "not.";
    out += filter.kind == FilterKind::And ? "and(" : "or(";
    for (std::size_t i = 0; i < filter.children.size(); ++i) {
      if (i > 0) out.push_back(',');
      describeInto(filter.children[i], out);
    }
    out.push_back(')');
    return;
  }
  out += filter.column;
  out.push_back('.');
  if (filter.negated) out += "not.";
  out += filterOpName(filter.op);
  if (!filter.language.empty()) out += "(" + filter.language + ")";
  out.push_back('.');
  if (filter.op == FilterOp::In) {
    out.push_back('(');
    for (std::size_t i = 0; i < filter.values.size(); ++i) {
      if (i > 0) out.push_back(',');
      out += quoteValue(filter.values[i]);
    }
    out.push_back(')');
  } else if (filter.op == FilterOp::Is) {
    out += isValueName(filter.is);
  } else {
    out += quoteValue(filter.value);
  }
}

void describeListInto(const SelectList& list, std::string& out) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    const SelectItem& item = list[i];
    if (i > 0) out.push_back(',');
    if (item.kind == SelectKind::Star) {
      out.push_back('*');
      continue;
    }
    if (!item.alias.empty()) out += item.alias + ":";
    out += item.name;
    if (!item.cast.empty()) out += "::" + item.cast;
    if (item.kind == SelectKind::Embed) {
      if (!item.hint.empty()) out += "!" + item.hint;
      out.push_back('(');
      describeListInto(item.children, out);
      out.push_back(')');
    }
  }
}

}  // namespace

std::string_view filterOpName(FilterOp op) {
  for (const auto& [known, name] : kOperators) {
    if (known == op) return name;
  }
  return "?";
}

std::optional<FilterOp> filterOpFromName(std::string_view name) {
  for (const auto& [op, known] : kOperators) {
    if (known == name) return op;
  }
  return std::nullopt;
}

bool takesLanguage(FilterOp op) {
  return op == FilterOp::Fts || op == FilterOp::Plfts || op == FilterOp::Phfts ||
         op == FilterOp::Wfts;
}

std::string knownFilterOpNames() {
  std::string out;
  for (const auto& [op, name] : kOperators) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

std::string_view isValueName(IsValue value) {
  switch (value) {
    case IsValue::Null:
      return "null";
    case IsValue::NotNull:
      return "not_null";
    case IsValue::True:
      return "true";
    case IsValue::False:
      return "false";
    case IsValue::Unknown:
      return "unknown";
  }
  return "?";
}

std::string describeFilter(const Filter& filter) {
  std::string out;
  describeInto(filter, out);
  return out;
}

std::string describeSelect(const SelectList& list) {
  std::string out;
  describeListInto(list, out);
  return out;
}

}  // namespace berth::sqlconsole
