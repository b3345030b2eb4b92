#include "function_catalog.hpp"

#include <set>

#include <berth/common/sql_text.hpp>
#include "rest_sql_parts.hpp"
#include "rest_text.hpp"

namespace berth::sqlconsole {
namespace {

constexpr std::string_view kFunctionsQuery = R"SQL(
SELECT coalesce(json_agg(json_build_object(
  'names', p.proargnames,
  'modes', p.proargmodes,
  'in_types', (SELECT coalesce(json_agg(format_type(a.x, NULL) ORDER BY a.i), '[]')
               FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY a(x, i)),
  'defaults', p.pronargdefaults,
  'set', p.proretset,
  'void', p.prorettype = 'void'::regtype,
  'composite', t.typtype = 'c' OR p.prorettype = 'record'::regtype,
  'variadic', p.provariadic <> 0
) ORDER BY p.oid), '[]')
FROM pg_proc p
JOIN pg_type t ON t.oid = p.prorettype
WHERE p.pronamespace = 'public'::regnamespace AND p.proname = $1 AND p.prokind = 'f'
)SQL";

bool isInput(const std::string& mode) {
  return mode == "i" || mode == "b" || mode == "v";
}

CatalogFunction functionFrom(std::string_view name, const nlohmann::json& f) {
  CatalogFunction function;
  function.name = std::string(name);
  function.variadic = f.at("variadic").get<bool>();
  std::vector<std::string> names;
  if (f.at("names").is_array())
    for (const auto& n : f.at("names")) names.push_back(n.is_string() ? n.get<std::string>() : "");
  std::vector<std::string> types;
  for (const auto& t : f.at("in_types")) types.push_back(t.get<std::string>());

  // proargnames follows every argument (OUT ones too) when there are modes, else the inputs.
  std::vector<std::string> input_names;
  if (f.at("modes").is_array()) {
    const auto& modes = f.at("modes");
    for (size_t j = 0; j < modes.size(); ++j)
      if (isInput(modes[j].get<std::string>()))
        input_names.push_back(j < names.size() ? names[j] : "");
  } else {
    for (size_t i = 0; i < types.size(); ++i)
      input_names.push_back(i < names.size() ? names[i] : "");
  }
  const size_t defaults = f.at("defaults").get<size_t>();
  for (size_t i = 0; i < types.size(); ++i) {
    FunctionArgument argument;
    argument.name = i < input_names.size() ? input_names[i] : "";
    argument.type = types[i];
    argument.has_default = i + defaults >= types.size();
    function.arguments.push_back(std::move(argument));
  }
  const bool set = f.at("set").get<bool>();
  const bool composite = f.at("composite").get<bool>();
  if (f.at("void").get<bool>())
    function.result = FunctionResult::Void;
  else if (set)
    function.result = composite ? FunctionResult::RowSet : FunctionResult::ScalarSet;
  else
    function.result = composite ? FunctionResult::Row : FunctionResult::Scalar;
  return function;
}

bool fits(const CatalogFunction& function, const nlohmann::json& body) {
  std::set<std::string> given;
  for (const auto& [key, value] : body.items()) given.insert(key);
  for (const FunctionArgument& argument : function.arguments) {
    if (!argument.name.empty() && given.erase(argument.name) > 0) continue;
    if (!argument.has_default) return false;
  }
  return given.empty();
}

std::string signature(const CatalogFunction& function) {
  std::string out = function.name + "(";
  for (size_t i = 0; i < function.arguments.size(); ++i) {
    const FunctionArgument& a = function.arguments[i];
    if (i > 0) out += ", ";
    out += (a.name.empty() ? "<unnamed>" : a.name) + " " + a.type;
    if (a.has_default) out += " default";
  }
  return out + ")";
}

std::string keysText(const nlohmann::json& body) {
  std::string out;
  for (const auto& [key, value] : body.items()) out += (out.empty() ? "" : ", ") + key;
  return "(" + out + ")";
}

}  // namespace

std::vector<CatalogFunction> loadFunctions(PgSession& session, std::string_view name) {
  PgResult result = session.exec(kFunctionsQuery, {std::string(name)});
  nlohmann::json list = nlohmann::json::parse(PQgetvalue(result.get(), 0, 0));
  std::vector<CatalogFunction> functions;
  for (const auto& f : list) functions.push_back(functionFrom(name, f));
  return functions;
}

bool functionExists(PgSession& session, std::string_view name) {
  PgResult result = session.exec(
      "SELECT EXISTS (SELECT 1 FROM pg_proc WHERE pronamespace = 'public'::regnamespace "
      "AND proname = $1 AND prokind = 'f')",
      {std::string(name)});
  return std::string_view(PQgetvalue(result.get(), 0, 0)) == "t";
}

SqlStatement buildFunctionCall(const std::vector<CatalogFunction>& overloads, std::string_view name,
                               const nlohmann::json& body, FunctionResult* result) {
  const std::string shown = rest_text::printableSnippet(name, 120);
  if (overloads.empty()) throw RestRefusal("no function named " + shown);
  if (!body.is_object())
    throw RestRefusal("the body must be a JSON object of argument names and values");
  std::vector<const CatalogFunction*> fitting;
  for (const CatalogFunction& f : overloads)
    if (fits(f, body)) fitting.push_back(&f);
  if (fitting.size() != 1) {
    std::string known;
    for (const CatalogFunction& f : overloads) known += (known.empty() ? "" : ", ") + signature(f);
    throw RestRefusal((fitting.empty() ? "no function " : "more than one function ") + shown +
                      " takes the arguments " + keysText(body) + "; there is " + known);
  }
  const CatalogFunction& function = *fitting.front();
  SqlParams params;
  std::string arguments;
  for (const FunctionArgument& argument : function.arguments) {
    auto it = argument.name.empty() ? body.end() : body.find(argument.name);
    if (it == body.end()) continue;  // left to its default
    if (!arguments.empty()) arguments += ", ";
    const bool variadic = function.variadic && &argument == &function.arguments.back();
    // The type comes from pg_proc, never from the request.
    arguments += std::string(variadic ? "VARIADIC " : "") +
                 common::quotedIdentifier(argument.name) + " => " +
                 params.add(pgValueText(*it, argument.type)) + "::" + argument.type;
  }
  const std::string call =
      "\"public\"." + common::quotedIdentifier(function.name) + "(" + arguments + ")";
  SqlStatement statement;
  switch (function.result) {
    case FunctionResult::Void:
      statement.text = "SELECT " + call;
      break;
    case FunctionResult::Scalar:
      statement.text = "SELECT to_json(" + call + ")";
      break;
    case FunctionResult::Row:
      statement.text = "SELECT to_json(_r.*) FROM " + call + " AS _r";
      break;
    case FunctionResult::ScalarSet:
      statement.text = "SELECT coalesce(json_agg(_r.v), '[]') FROM " + call + " AS _r(v)";
      break;
    case FunctionResult::RowSet:
      statement.text = "SELECT coalesce(json_agg(_r.*), '[]') FROM " + call + " AS _r";
      break;
  }
  statement.params = params.take();
  if (result != nullptr) *result = function.result;
  return statement;
}

}  // namespace berth::sqlconsole
