# The MySQL lexer/parser of the WordPress drop-in (plugins/templates/wordpress/payload/
# wp-content/berth-pgsql: Lexer, Parser, Ast): every corpus statement, each construct's tree,
# the refusals, and WordPress's own schema (tests/wordpress/parser). No database needed.
add_test(NAME wordpress/parser
         COMMAND phpunit --colors=never -c ${CMAKE_SOURCE_DIR}/tests/wordpress/parser/phpunit.xml)
set_tests_properties(wordpress/parser PROPERTIES LABELS unit TIMEOUT 120)
