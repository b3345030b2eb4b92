// Statements in SQL text, found the way PostgreSQL's lexer would: a ; ends a statement unless
// it is inside '...', E'...', "...", $tag$...$tag$, a -- comment or a /* nested */ comment.
// The shell sends one statement to /query and several to /batch.
#pragma once
#include <string>
#include <vector>

namespace berth::client {

// The statements, trimmed, without the ; that ended them; pieces holding only white space and
// comments are left out.
std::vector<std::string> splitStatements(const std::string& sql);

// Whether the text ends with a ; outside quotes and comments (the shell then runs it), or is
// only white space and comments.
bool endsStatement(const std::string& sql);

}  // namespace berth::client
