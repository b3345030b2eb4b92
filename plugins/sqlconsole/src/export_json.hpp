// The json export: {"tables": {"<table>": [row objects]}} (docs/openapi.yaml,
// DatabaseJsonExport), every table of public by name, each row an object keyed by column name
// in column order, values as /query gives them (query_values.hpp). Written as rows stream from
// the database.
#pragma once

#include "export_file.hpp"
#include "pg_session.hpp"

namespace berth::sqlconsole {

void writeJsonExport(PgSession& session, ExportFile& out);

}  // namespace berth::sqlconsole
